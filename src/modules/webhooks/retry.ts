// When to try again. The first attempt is immediate; after failed attempt k of a round the
// next one waits about schedule[k-1] seconds. The default schedule grows exponentially
// (5 s x 4^k) up to a cap of 10 h, so a receiver down for seconds is retried within
// seconds and one down for a day is not hammered. Each wait is jittered downwards by up to
// 20 % (never above the cap) so receivers coming back up are not hit by a synchronised
// wave. A 429 or 503 with Retry-After waits at least that long. After the last entry: dead
// letter.
export const JITTER = 0.2;

/** The default retry schedule's shape (docs/webhooks.md quotes these numbers). */
export const RETRY_BASE_SECONDS = 5;
export const RETRY_FACTOR = 4;
export const RETRY_CAP_SECONDS = 36_000;
export const RETRY_COUNT = 9;

/** base x factor^k for k = 0..count-1, each capped: 5 s, 20 s, 80 s, 5 min 20 s, ..., 10 h, 10 h. */
export function exponentialSchedule(base = RETRY_BASE_SECONDS, factor = RETRY_FACTOR, cap = RETRY_CAP_SECONDS, count = RETRY_COUNT): number[] {
  return Array.from({ length: count }, (_, k) => Math.min(cap, base * factor ** k));
}

export type Outcome =
  | { kind: 'succeeded' }
  | { kind: 'gone' }
  | { kind: 'retry'; delaySeconds: number }
  | { kind: 'dead' };

export function decide(opts: {
  statusCode: number | null;
  retryAfterSeconds: number | null;
  /** 1 for the first attempt of this round (a replay starts a new round). */
  attemptInRound: number;
  schedule: readonly number[];
  random?: () => number;
}): Outcome {
  const { statusCode } = opts;
  if (statusCode !== null && statusCode >= 200 && statusCode < 300) return { kind: 'succeeded' };
  if (statusCode === 410) return { kind: 'gone' };
  const base = opts.schedule[opts.attemptInRound - 1];
  if (base === undefined) return { kind: 'dead' };
  const random = opts.random ?? Math.random;
  let delay = base * (1 - JITTER * random());
  if ((statusCode === 429 || statusCode === 503) && opts.retryAfterSeconds !== null) delay = Math.max(delay, opts.retryAfterSeconds);
  return { kind: 'retry', delaySeconds: delay };
}
