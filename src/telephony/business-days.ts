// Business-day arithmetic for number porting: carriers quote firm order
// commitment (FOC) dates in business days, skipping weekends and holidays as
// observed in the carrier's time zone.

/**
 * US federal holidays as observed (a Saturday holiday moves to Friday, a
 * Sunday one to Monday), per OPM. 2027-12-31 is New Year's Day 2028 observed.
 */
export const US_FEDERAL_HOLIDAYS_2026_2027: readonly string[] = [
  '2026-01-01', // New Year's Day
  '2026-01-19', // Birthday of Martin Luther King, Jr.
  '2026-02-16', // Washington's Birthday
  '2026-05-25', // Memorial Day
  '2026-06-19', // Juneteenth
  '2026-07-03', // Independence Day (observed)
  '2026-09-07', // Labor Day
  '2026-10-12', // Columbus Day
  '2026-11-11', // Veterans Day
  '2026-11-26', // Thanksgiving Day
  '2026-12-25', // Christmas Day
  '2027-01-01', // New Year's Day
  '2027-01-18', // Birthday of Martin Luther King, Jr.
  '2027-02-15', // Washington's Birthday
  '2027-05-31', // Memorial Day
  '2027-06-18', // Juneteenth (observed)
  '2027-07-05', // Independence Day (observed)
  '2027-09-06', // Labor Day
  '2027-10-11', // Columbus Day
  '2027-11-11', // Veterans Day
  '2027-11-25', // Thanksgiving Day
  '2027-12-24', // Christmas Day (observed)
  '2027-12-31', // New Year's Day 2028 (observed)
];

const DAY_MS = 86_400_000;

/**
 * Moves `days` business days from `start` (negative = backwards), keeping the
 * wall-clock time of day in `timeZone`. Starting on a weekend or holiday is
 * fine: Saturday + 1 business day is Monday. If the kept time does not exist
 * on the target date (DST spring-forward), the result shifts by the gap.
 */
export function addBusinessDays(start: Date, days: number, holidays: readonly string[], timeZone = 'UTC'): Date {
  if (!Number.isInteger(days)) throw new RangeError(`addBusinessDays: days must be an integer, got ${days}`);
  const calendar = new ZonedCalendar(timeZone, holidays);
  const { date, timeOfDayMs } = calendar.split(start);
  let day = date;
  for (let remaining = Math.abs(days); remaining > 0; ) {
    day += Math.sign(days) * DAY_MS;
    if (calendar.isBusinessDay(day)) remaining--;
  }
  return calendar.join(day, timeOfDayMs);
}

/**
 * Business days stepped onto going from `a`'s date to `b`'s date, by calendar
 * date in `timeZone` (time of day ignored): forwards counts (a, b], backwards
 * counts [b, a) negatively. This makes it the inverse of addBusinessDays:
 * businessDaysBetween(a, addBusinessDays(a, n, h), h) === n.
 */
export function businessDaysBetween(a: Date, b: Date, holidays: readonly string[], timeZone = 'UTC'): number {
  const calendar = new ZonedCalendar(timeZone, holidays);
  const from = calendar.split(a).date;
  const to = calendar.split(b).date;
  let count = 0;
  if (to >= from) {
    for (let day = from + DAY_MS; day <= to; day += DAY_MS) if (calendar.isBusinessDay(day)) count++;
  } else {
    for (let day = to; day < from; day += DAY_MS) if (calendar.isBusinessDay(day)) count--;
  }
  return count;
}

/**
 * Calendar dates in a time zone, represented as the UTC-midnight epoch ms of
 * that date so day steps are plain additions unaffected by DST.
 */
class ZonedCalendar {
  private readonly holidays: Set<string>;
  private readonly format: Intl.DateTimeFormat;

  constructor(timeZone: string, holidays: readonly string[]) {
    const malformed = holidays.find((h) => !/^\d{4}-\d{2}-\d{2}$/.test(h));
    if (malformed !== undefined) throw new RangeError(`holiday "${malformed}" is not YYYY-MM-DD`);
    this.holidays = new Set(holidays);
    // Throws RangeError for an unknown time zone.
    this.format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  }

  isBusinessDay(date: number): boolean {
    const weekday = new Date(date).getUTCDay();
    return weekday !== 0 && weekday !== 6 && !this.holidays.has(new Date(date).toISOString().slice(0, 10));
  }

  /** The local date (UTC-midnight ms) and the ms since local midnight. */
  split(instant: Date): { date: number; timeOfDayMs: number } {
    const wallClock = this.wallClockAsUtc(instant.getTime());
    const date = Math.floor(wallClock / DAY_MS) * DAY_MS;
    return { date, timeOfDayMs: wallClock - date };
  }

  /** The instant at `timeOfDayMs` past local midnight on `date`. */
  join(date: number, timeOfDayMs: number): Date {
    const wallClock = date + timeOfDayMs;
    // The zone offset depends on the instant we are solving for; a second pass
    // corrects a first guess that landed on the other side of a DST change.
    const guess = wallClock - this.offsetAt(wallClock);
    return new Date(wallClock - this.offsetAt(guess));
  }

  private offsetAt(instant: number): number {
    return this.wallClockAsUtc(instant) - instant;
  }

  /** The local wall-clock reading at `instant`, expressed as if it were UTC. */
  private wallClockAsUtc(instant: number): number {
    const parts: Record<string, number> = {};
    for (const part of this.format.formatToParts(instant)) parts[part.type] = Number(part.value);
    const { year = 0, month = 1, day = 1, hour = 0, minute = 0, second = 0 } = parts;
    const wholeSeconds = Date.UTC(year, month - 1, day, hour, minute, second);
    return wholeSeconds + (((instant % 1000) + 1000) % 1000);
  }
}
