// Opening hours in the business's own timezone. The schedule format is part of
// the public API: { timezone: IANA name, schedule: { mon: ["09:00-17:00"], ... } }.
// A range must end after it starts on the same day ("24:00" closes at
// midnight); a business open past midnight writes two ranges, e.g.
// fri ["18:00-24:00"] and sat ["00:00-02:00"]. That keeps every range
// unambiguous and lets validation reject typos like "17:00-09:00".
import type { BusinessHours, Weekday } from './types.ts';

export const WEEKDAYS: readonly Weekday[] = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

const RANGE_PATTERN = /^(\d{2}):(\d{2})-(\d{2}):(\d{2})$/;

interface MinuteRange {
  start: number;
  end: number;
}

/** Parses "09:00-17:30" into minutes since midnight, or null when malformed. */
export function parseRange(range: string): MinuteRange | null {
  const m = RANGE_PATTERN.exec(range.trim());
  if (!m) return null;
  const [sh, sm, eh, em] = [m[1], m[2], m[3], m[4]].map(Number) as [number, number, number, number];
  if (sh > 23 || sm > 59 || eh > 24 || em > 59 || (eh === 24 && em !== 0)) return null;
  const start = sh * 60 + sm;
  const end = eh * 60 + em;
  return end > start ? { start, end } : null;
}

const localTimeFormatters = new Map<string, Intl.DateTimeFormat>();

/** Day of week and minute of day at `at`, in `timezone`. Throws RangeError for an unknown timezone. */
export function localWeekdayAndMinute(timezone: string, at: Date): { day: Weekday; minute: number } {
  let formatter = localTimeFormatters.get(timezone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      weekday: 'short',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    localTimeFormatters.set(timezone, formatter);
  }
  const parts = Object.fromEntries(formatter.formatToParts(at).map((p) => [p.type, p.value]));
  const day = String(parts.weekday).slice(0, 3).toLowerCase() as Weekday;
  // Some ICU versions print midnight as "24" even with h23.
  const hour = Number(parts.hour) % 24;
  return { day, minute: hour * 60 + Number(parts.minute) };
}

/**
 * True when `at` falls inside one of the day's ranges (start inclusive, end
 * exclusive). Malformed ranges are ignored, so bad data means "closed" rather
 * than an exception in the middle of a call; validate on input instead.
 */
export function isOpen(hours: BusinessHours, at: Date): boolean {
  const { day, minute } = localWeekdayAndMinute(hours.timezone, at);
  const ranges = hours.schedule[day] ?? [];
  return ranges.some((range) => {
    const parsed = parseRange(range);
    return parsed !== null && minute >= parsed.start && minute < parsed.end;
  });
}

export function isValidTimezone(timezone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
    return true;
  } catch {
    return false;
  }
}

/** Human-readable problems with a business-hours value; empty when it is valid. */
export function validateBusinessHours(x: unknown): string[] {
  if (typeof x !== 'object' || x === null || Array.isArray(x)) {
    return ['business hours must be an object with "timezone" and "schedule"'];
  }
  const problems: string[] = [];
  const { timezone, schedule, ...extra } = x as Record<string, unknown>;
  for (const key of Object.keys(extra)) problems.push(`unknown field "${key}" (expected "timezone" and "schedule")`);

  if (typeof timezone !== 'string' || timezone.trim() === '') {
    problems.push('"timezone" must be an IANA timezone name such as "America/New_York"');
  } else if (!isValidTimezone(timezone)) {
    problems.push(`"timezone" "${timezone}" is not a known IANA timezone`);
  }

  if (typeof schedule !== 'object' || schedule === null || Array.isArray(schedule)) {
    problems.push('"schedule" must be an object keyed by mon, tue, wed, thu, fri, sat, sun');
    return problems;
  }
  for (const [day, ranges] of Object.entries(schedule)) {
    if (!(WEEKDAYS as readonly string[]).includes(day)) {
      problems.push(`schedule has unknown day "${day}" (use mon, tue, wed, thu, fri, sat, sun)`);
      continue;
    }
    if (!Array.isArray(ranges)) {
      problems.push(`schedule.${day} must be a list of "HH:MM-HH:MM" ranges (use [] when closed)`);
      continue;
    }
    const parsed: (MinuteRange & { text: string })[] = [];
    ranges.forEach((range: unknown, i) => {
      if (typeof range !== 'string') {
        problems.push(`schedule.${day}[${i}] must be a string like "09:00-17:00"`);
        return;
      }
      const minutes = parseRange(range);
      if (!minutes) {
        problems.push(describeBadRange(`schedule.${day}[${i}]`, range));
        return;
      }
      parsed.push({ ...minutes, text: range.trim() });
    });
    parsed.sort((a, b) => a.start - b.start);
    for (let i = 1; i < parsed.length; i++) {
      if (parsed[i]!.start < parsed[i - 1]!.end) {
        problems.push(`schedule.${day}: ranges "${parsed[i - 1]!.text}" and "${parsed[i]!.text}" overlap`);
      }
    }
  }
  return problems;
}

function describeBadRange(where: string, range: string): string {
  const m = RANGE_PATTERN.exec(range.trim());
  if (!m) return `${where} "${range}" is not in the form "HH:MM-HH:MM" (24-hour clock, e.g. "09:00-17:00")`;
  const [sh, sm, eh, em] = [m[1], m[2], m[3], m[4]].map(Number) as [number, number, number, number];
  if (sh > 23 || sm > 59 || eh > 24 || em > 59 || (eh === 24 && em !== 0)) {
    return `${where} "${range}" has an invalid time (hours 00-23, minutes 00-59, "24:00" only as an end)`;
  }
  return `${where} "${range}" must end after it starts; split ranges that cross midnight across two days`;
}
