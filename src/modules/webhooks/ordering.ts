// Per-key serialisation inside one process: deliveries of the same resource to the same
// target are attempted one after another, in the order their jobs were claimed (emit
// order). A failed attempt does not hold back later events (its retry is a new job), so
// order is kept on the happy path, and receivers use `sequence` for the rest.
export class KeyedSerializer {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key);
    const result = previous ? previous.then(fn, fn) : fn();
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}
