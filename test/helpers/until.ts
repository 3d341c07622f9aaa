// The one polling wait of the test suite: asks `probe` again every `intervalMs` until it answers
// something (anything but undefined or false), and fails naming what never happened once
// `timeoutMs` has passed (an assertion failure, as the waits it replaced were). Every wait is
// bounded; none asserts how long anything took.
import assert from 'node:assert/strict';

export interface UntilOptions {
  timeoutMs?: number;
  intervalMs?: number;
  /** Added to the failure: what the test saw last, a peer's log. */
  detail?: () => string;
}

export async function until<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  { timeoutMs = 10_000, intervalMs = 50, detail }: UntilOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await probe();
    if (found !== undefined && found !== false) return found;
    if (Date.now() > deadline) assert.fail(`${what}: not within ${timeoutMs} ms${detail ? `\n${detail()}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
