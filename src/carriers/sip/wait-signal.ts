// Whether a conference mixed on another node waits for its start, as its home node last said
// (node-legs.ts): the participant's node plays the participant's own wait flow meanwhile
// (live-operations.ts), and stops when the home says it started.
export class WaitSignal {
  waiting = false;
  private wake: () => void = () => {};
  private changed = this.nextChange();

  /** The home said so (the same word again changes nothing). */
  set(waiting: boolean): void {
    if (waiting === this.waiting) return;
    this.waiting = waiting;
    const wake = this.wake;
    this.changed = this.nextChange();
    wake();
  }

  /** Resolves at the next change. */
  next(): Promise<void> {
    return this.changed;
  }

  private nextChange(): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve;
    });
  }
}
