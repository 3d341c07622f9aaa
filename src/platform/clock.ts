// Time is injected (ARCHITECTURE rule 3): domain code reads a Clock, never Date.now(),
// so sandbox test clocks and the simulator can move time.
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock shifted by a fixed offset: how a sandbox test clock sees the world. */
export function offsetClock(base: Clock, offsetMs: number): Clock {
  if (offsetMs === 0) return base;
  return { now: () => new Date(base.now().getTime() + offsetMs) };
}

/** Timestamps are stored as RFC 3339 UTC text with milliseconds: sortable on both engines. */
export function iso(date: Date): string {
  return date.toISOString();
}
