// Which event types a subscription receives: "*" (all), an exact type, or "<prefix>.*"
// (e.g. "call.*" matches call.completed and call.recording.ready).
import { EVENT_TYPES } from '../../events/catalogue.ts';
import { invalidField } from '../../platform/problems.ts';

const parsed = new Map<string, string[]>();

export function subscribedTypes(json: string): string[] {
  let list = parsed.get(json);
  if (!list) {
    list = JSON.parse(json) as string[];
    if (parsed.size > 10_000) parsed.clear();
    parsed.set(json, list);
  }
  return list;
}

export function matches(patterns: readonly string[], type: string): boolean {
  for (const p of patterns) {
    if (p === '*' || p === type) return true;
    if (p.endsWith('.*') && type.startsWith(p.slice(0, -1))) return true;
  }
  return false;
}

/** Validates a subscription's `events` list; an unknown type is a 400 naming it. */
export function normaliseEventPatterns(events: string[] | undefined): string[] {
  const list = events && events.length > 0 ? events : ['*'];
  const types = Object.keys(EVENT_TYPES);
  list.forEach((p, i) => {
    // A pattern is known when it would match at least one type of the catalogue.
    const known = types.some((t) => matches([p], t));
    if (!known) throw invalidField(`events.${i}`, `"${p}" is not an event type; use "*", a type from the catalogue or "<prefix>.*".`, 'invalid_value');
  });
  return list.includes('*') ? ['*'] : [...new Set(list)];
}
