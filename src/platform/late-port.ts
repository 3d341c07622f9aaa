// A dependency that exists only after the thing that needs it (a carrier reports to the
// calls service, which is built over the carriers; the flow interpreter hands calls to the
// queues, which are built over the interpreter). The composition root creates the port,
// gives its `get` to the earlier party and fills it once with the later one; before the
// server starts it checks that every port was filled (`assertFilled`), so a missing wire
// fails at start with the port's name instead of on the first call that needs it.
export class UnfilledPortError extends Error {
  constructor(names: string[]) {
    super(`composition: nothing was wired to ${names.map((n) => `"${n}"`).join(', ')} (fill the port in src/composition.ts)`);
    this.name = 'UnfilledPortError';
  }
}

export class LatePort<T> {
  #value: T | undefined;
  #filled = false;

  constructor(readonly name: string) {}

  get filled(): boolean {
    return this.#filled;
  }

  fill(value: T): void {
    if (this.#filled) throw new Error(`composition: "${this.name}" was wired twice`);
    this.#value = value;
    this.#filled = true;
  }

  get(): T {
    if (!this.#filled) throw new UnfilledPortError([this.name]);
    return this.#value as T;
  }

  /** `get` as a function, for the party that asks later. */
  readonly getter = (): T => this.get();
}

/** Throws one error naming every port still empty. */
export function assertFilled(ports: Iterable<LatePort<unknown>>): void {
  const empty = [...ports].filter((p) => !p.filled).map((p) => p.name);
  if (empty.length > 0) throw new UnfilledPortError(empty);
}
