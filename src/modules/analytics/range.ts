// The time window of an analytics or usage query: RFC 3339 start and end, cut into whole UTC
// buckets of an hour or a day. A partial bucket at either edge is widened to the whole bucket,
// so every bucket's counts cover the same span and sum by hand; the answer echoes the window
// it really covered.
import { invalidField } from '../../platform/problems.ts';

export type Interval = 'hour' | 'day';

const INTERVAL_MS: Record<Interval, number> = { hour: 3_600_000, day: 86_400_000 };
/** Stored timestamps are RFC 3339 text; this many leading characters name the bucket. */
export const BUCKET_KEY_LENGTH: Record<Interval, number> = { hour: 13, day: 10 };
/** Without `start`: the last day by hour, the last 30 days by day. */
const DEFAULT_SPAN: Record<Interval, number> = { hour: 24, day: 30 };
/** A 31-day month by hour, a year (leap or not) by day. */
export const MAX_BUCKETS: Record<Interval, number> = { hour: 744, day: 366 };

export interface Bucket {
  /** The bucket's first instant, RFC 3339 UTC. */
  start: string;
  end: string;
  /** The prefix of a stored timestamp that falls in it (`2026-11-26` or `2026-11-26T11`). */
  key: string;
}

export interface Window {
  interval: Interval;
  start: string;
  end: string;
  buckets: Bucket[];
}

export interface WindowQuery {
  start?: string | undefined;
  end?: string | undefined;
  interval?: Interval | undefined;
}

function parse(field: string, value: string): number {
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) throw invalidField(field, 'must be an RFC 3339 timestamp, e.g. 2026-11-01T00:00:00Z.', 'invalid_format');
  return ms;
}

/** `now` is the caller's clock (the sandbox test clock for a sandbox key). */
export function windowOf(query: WindowQuery, now: Date, defaultInterval: Interval = 'day'): Window {
  const interval = query.interval ?? defaultInterval;
  const size = INTERVAL_MS[interval];
  const endMs = query.end !== undefined ? parse('end', query.end) : now.getTime();
  const startMs = query.start !== undefined ? parse('start', query.start) : endMs - DEFAULT_SPAN[interval] * size;
  if (endMs <= startMs) {
    throw invalidField('end', `must be later than start (${new Date(startMs).toISOString()}).`, 'too_small');
  }
  // Every bucket is whole: start moves back to its bucket's first instant, end forward to its
  // bucket's end (an end on a boundary stays: the window is [start, end)).
  const first = Math.floor(startMs / size) * size;
  const last = Math.ceil(endMs / size) * size;
  const count = (last - first) / size;
  if (count > MAX_BUCKETS[interval]) {
    throw invalidField(
      'start',
      `the window from start to end holds ${count} ${interval} buckets; at most ${MAX_BUCKETS[interval]} are allowed (${interval === 'hour' ? 'use interval=day for longer windows' : 'ask for a year at a time'}).`,
      'too_large',
    );
  }
  const buckets: Bucket[] = [];
  for (let at = first; at < last; at += size) {
    const start = new Date(at).toISOString();
    buckets.push({ start, end: new Date(at + size).toISOString(), key: start.slice(0, BUCKET_KEY_LENGTH[interval]) });
  }
  return { interval, start: new Date(first).toISOString(), end: new Date(last).toISOString(), buckets };
}
