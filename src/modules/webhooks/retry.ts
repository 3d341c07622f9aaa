// When to try again. The first attempt is immediate; after failed attempt k of a round the
// next one waits schedule[k-1] seconds (Svix's: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h),
// +/-10 % jitter so a receiver coming back up is not hit by a synchronised wave. A 429 or
// 503 with Retry-After waits at least that long. After the last entry: dead letter.
export const JITTER = 0.1;

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
  let delay = base * (1 - JITTER + 2 * JITTER * random());
  if ((statusCode === 429 || statusCode === 503) && opts.retryAfterSeconds !== null) delay = Math.max(delay, opts.retryAfterSeconds);
  return { kind: 'retry', delaySeconds: delay };
}
