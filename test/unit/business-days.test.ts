import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  addBusinessDays,
  businessDaysBetween,
  US_FEDERAL_HOLIDAYS_2026_2027,
} from '../../src/telephony/business-days.ts';

const HOLIDAYS = US_FEDERAL_HOLIDAYS_2026_2027;
const at = (iso: string) => new Date(iso);

test('a weekend is skipped and the time of day kept', () => {
  assert.deepEqual(addBusinessDays(at('2026-03-13T15:45:10.250Z'), 1, HOLIDAYS), at('2026-03-16T15:45:10.250Z'), 'Fri + 1 = Mon');
  assert.deepEqual(addBusinessDays(at('2026-03-11T09:00:00Z'), 5, HOLIDAYS), at('2026-03-18T09:00:00Z'), 'Wed + 5 = next Wed');
  assert.deepEqual(addBusinessDays(at('2026-03-14T09:00:00Z'), 1, HOLIDAYS), at('2026-03-16T09:00:00Z'), 'Sat + 1 = Mon');
  assert.deepEqual(addBusinessDays(at('2026-03-14T09:00:00Z'), 0, HOLIDAYS), at('2026-03-14T09:00:00Z'), '+ 0 = unchanged');
});

test('porting FOC: a holiday next to a weekend is skipped too', () => {
  // Thu 2 July 2026 + 3: Fri 3 July is Independence Day observed, then the weekend.
  assert.deepEqual(addBusinessDays(at('2026-07-02T10:00:00Z'), 3, HOLIDAYS), at('2026-07-08T10:00:00Z'));
  assert.deepEqual(addBusinessDays(at('2026-07-02T10:00:00Z'), 3, []), at('2026-07-07T10:00:00Z'), 'no holidays given');
  // Wed before Thanksgiving + 2 = Mon (Thu holiday, Fri counts, weekend).
  assert.deepEqual(addBusinessDays(at('2026-11-25T12:00:00Z'), 2, HOLIDAYS), at('2026-11-30T12:00:00Z'));
  // Over the year end: Thu 24 Dec 2026 + 2 skips Christmas and the weekend.
  assert.deepEqual(addBusinessDays(at('2026-12-24T08:00:00Z'), 2, HOLIDAYS), at('2026-12-29T08:00:00Z'));
});

test('negative days go backwards', () => {
  assert.deepEqual(addBusinessDays(at('2026-07-06T10:00:00Z'), -1, HOLIDAYS), at('2026-07-02T10:00:00Z'));
  assert.deepEqual(addBusinessDays(at('2026-03-15T10:00:00Z'), -1, HOLIDAYS), at('2026-03-13T10:00:00Z'), 'Sun - 1 = Fri');
});

test('weekdays, holidays and time of day are those of the given time zone', () => {
  // Fri 2 Jan 2026 23:30 in New York is already Saturday in UTC.
  const fridayNight = at('2026-01-03T04:30:00Z');
  assert.deepEqual(addBusinessDays(fridayNight, 1, HOLIDAYS, 'America/New_York'), at('2026-01-06T04:30:00Z'));
  assert.deepEqual(addBusinessDays(fridayNight, 1, HOLIDAYS), at('2026-01-05T04:30:00Z'), 'UTC Saturday + 1 = Monday');
  // 17:00 local is kept across the spring-forward on Sun 8 March 2026.
  assert.deepEqual(addBusinessDays(at('2026-03-06T22:00:00Z'), 1, [], 'America/New_York'), at('2026-03-09T21:00:00Z'));
  assert.throws(() => addBusinessDays(fridayNight, 1, [], 'Mars/Olympus_Mons'), RangeError);
});

test('businessDaysBetween counts the business days stepped onto, by calendar date', () => {
  assert.equal(businessDaysBetween(at('2026-07-02T23:00:00Z'), at('2026-07-08T01:00:00Z'), HOLIDAYS), 3);
  assert.equal(businessDaysBetween(at('2026-03-13T00:00:00Z'), at('2026-03-15T00:00:00Z'), HOLIDAYS), 0, 'Fri to Sun');
  assert.equal(businessDaysBetween(at('2026-03-16T00:00:00Z'), at('2026-03-16T23:59:00Z'), HOLIDAYS), 0, 'same day');
  assert.equal(businessDaysBetween(at('2026-07-06T00:00:00Z'), at('2026-07-02T00:00:00Z'), HOLIDAYS), -1);
});

test('businessDaysBetween inverts addBusinessDays', () => {
  for (let offset = 0; offset < 14; offset++) {
    const start = new Date(Date.UTC(2026, 10, 20 + offset, 9));
    for (const days of [-7, -3, -1, 0, 1, 2, 5, 10]) {
      const end = addBusinessDays(start, days, HOLIDAYS, 'America/Los_Angeles');
      assert.equal(businessDaysBetween(start, end, HOLIDAYS, 'America/Los_Angeles'), days, `${start.toISOString()} ${days}`);
    }
  }
});

test('the federal holiday list is observed weekdays, sorted', () => {
  assert.equal(HOLIDAYS.length, 23);
  assert.deepEqual([...HOLIDAYS].sort(), HOLIDAYS);
  for (const day of HOLIDAYS) assert.ok(![0, 6].includes(new Date(`${day}T00:00:00Z`).getUTCDay()), day);
  for (const day of ['2026-07-03', '2026-11-26', '2027-06-18', '2027-07-05', '2027-12-24']) assert.ok(HOLIDAYS.includes(day));
});

test('bad input is rejected', () => {
  assert.throws(() => addBusinessDays(at('2026-03-13T00:00:00Z'), 1.5, HOLIDAYS), /integer/);
  assert.throws(() => addBusinessDays(at('2026-03-13T00:00:00Z'), 1, ['2026-7-3']), /not YYYY-MM-DD/);
});
