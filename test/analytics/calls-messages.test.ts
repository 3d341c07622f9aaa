// Analytics over calls and messages placed through the sandbox API on a test clock, so every
// figure lands in a bucket a person can check by hand. The simulator runs at real scale
// (SWITCHBOARD_SIM_TIME_SCALE=1): nothing moves until the test clock does.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useSandboxAccount, type SandboxAccount } from '../helpers/sandbox-account.ts';


let sb: SandboxAccount;
const DAY = 86_400_000;
let day0 = ''; // YYYY-MM-DD of the first day the test places calls on
let day1 = '';
let day2 = '';
const delivered: Record<string, string[]> = {}; // day -> ids of the messages expected to be delivered

async function advanceTo(at: string): Promise<void> {
  const res = await sb.api().post('/v1/sandbox/clock/advance', { to: at });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}
async function advance(seconds: number): Promise<void> {
  const res = await sb.api().post('/v1/sandbox/clock/advance', { seconds });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}
/** Jobs that fall due during an advance run at its end, and schedule their next steps from there: step through a call's and a message's life. */
async function settle(): Promise<void> {
  for (const seconds of [1, 2, 5, 10, 60, 600]) await advance(seconds);
}
async function call(to: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await sb.api().post('/v1/calls', { from: sb.from, to, record: false, ...extra });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.id;
}
async function message(to: string, body = 'hello'): Promise<string> {
  const res = await sb.api().post('/v1/messages', { from: sb.from, to, body });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.id;
}

describe('analytics and usage over a sandbox account', () => {
sb = useSandboxAccount({ SWITCHBOARD_SIM_TIME_SCALE: '1' });

before(async () => {
  // Start on a fresh UTC day after the clock's today: D 01:00.
  const now = Date.parse((await sb.api().get('/v1/sandbox/clock')).body.now);
  const d0 = Math.floor(now / DAY) * DAY + DAY;
  [day0, day1, day2] = [d0, d0 + DAY, d0 + 2 * DAY].map((ms) => new Date(ms).toISOString().slice(0, 10)) as [string, string, string];

  // D 01:00: two answered calls (5 s of talk each), one busy.
  await advanceTo(`${day0}T01:00:00.000Z`);
  await call('+14155550100');
  await call('+14155550101');
  await call('+15005550001');
  // Messages at the same time: two delivered, one undelivered, one refused by the carrier.
  delivered[day0] = [await message('+14155550100'), await message('+14155550101', 'x'.repeat(200))]; // the second: two GSM-7 segments
  await message('+15005550009');
  await message('+15005550010');
  // Sent after 1 s, delivered 2 s later: step the clock so delivery lands about 3 s after acceptance.
  await settle();

  // D 03:00: one failed, one unanswered.
  await advanceTo(`${day0}T03:00:00.000Z`);
  await call('+15005550003');
  await call('+15005550002', { timeout: 5 });
  await settle();

  // D+1 05:00: one more answered call and one delivered WhatsApp-less SMS.
  await advanceTo(`${day1}T05:00:00.000Z`);
  await call('+14155550102');
  delivered[day1] = [await message('+14155550102')];
  await settle();
});

describe('GET /v1/analytics/calls', () => {
  test('daily buckets: attempted, answered, answer-seizure ratio, average duration, outcomes', async () => {
    const res = await sb.api().get(`/v1/analytics/calls?start=${day0}T00:00:00Z&end=${day2}T00:00:00Z&interval=day`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const a = res.body;
    assert.equal(a.object, 'call_analytics');
    assert.equal(a.mode, 'sandbox');
    assert.equal(a.interval, 'day');
    assert.equal(a.start, `${day0}T00:00:00.000Z`);
    assert.equal(a.end, `${day2}T00:00:00.000Z`);
    assert.equal(a.group_by, null);
    assert.equal(a.data.length, 2);

    const [d0, d1] = a.data;
    assert.equal(d0.start, `${day0}T00:00:00.000Z`);
    assert.equal(d0.end, `${day1}T00:00:00.000Z`);
    assert.equal(d0.attempted, 5);
    assert.equal(d0.answered, 2);
    assert.equal(d0.answer_seizure_ratio, 0.4);
    assert.equal(d0.average_duration_seconds, 5);
    assert.equal(d0.total_duration_seconds, 10);
    assert.deepEqual(d0.by_status, { queued: 0, ringing: 0, in_progress: 0, completed: 2, busy: 1, no_answer: 1, failed: 1, canceled: 0 });
    assert.equal(d0.by_hangup_cause.normal_clearing, 2);
    assert.equal(d0.by_hangup_cause.user_busy, 1);
    assert.equal(d0.by_hangup_cause.network_out_of_order, 1);
    assert.equal(Object.values(d0.by_hangup_cause as Record<string, number>).reduce((s, n) => s + n, 0), 5);

    assert.equal(d1.attempted, 1);
    assert.equal(d1.answered, 1);
    assert.equal(d1.answer_seizure_ratio, 1);
    assert.equal(d1.by_status.completed, 1);

    assert.equal(a.totals.attempted, 6);
    assert.equal(a.totals.answered, 3);
    assert.equal(a.totals.answer_seizure_ratio, 0.5);
    assert.equal(a.totals.average_duration_seconds, 5);
  });

  test('hourly buckets: every hour present, empty ones with zeros and null ratios', async () => {
    const res = await sb.api().get(`/v1/analytics/calls?start=${day0}T00:00:00Z&end=${day1}T00:00:00Z&interval=hour`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const data = res.body.data as any[];
    assert.equal(data.length, 24);
    assert.deepEqual(data.map((b) => b.attempted), [0, 3, 0, 2, ...Array(20).fill(0)]);
    assert.equal(data[1].start, `${day0}T01:00:00.000Z`);
    assert.equal(data[1].answered, 2);
    assert.equal(data[3].answered, 0);
    assert.equal(data[3].answer_seizure_ratio, 0);
    assert.equal(data[0].answer_seizure_ratio, null);
    assert.equal(data[0].average_duration_seconds, null);
    assert.deepEqual(data[0].by_hangup_cause, {});
  });

  test('a window inside a bucket covers the whole bucket, and the answer says so', async () => {
    const res = await sb.api().get(`/v1/analytics/calls?start=${day0}T01:30:00Z&end=${day0}T03:10:00Z&interval=hour`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.start, `${day0}T01:00:00.000Z`);
    assert.equal(res.body.end, `${day0}T04:00:00.000Z`);
    assert.deepEqual(res.body.data.map((b: any) => b.attempted), [3, 0, 2]);
  });

  test('group_by=status and group_by=direction split each bucket and the totals', async () => {
    const byStatus = await sb.api().get(`/v1/analytics/calls?start=${day0}T00:00:00Z&end=${day1}T00:00:00Z&group_by=status`);
    assert.equal(byStatus.status, 200, JSON.stringify(byStatus.body));
    assert.equal(byStatus.body.group_by, 'status');
    const groups = byStatus.body.data[0].groups as any[];
    assert.deepEqual(groups.map((g) => [g.value, g.attempted, g.answered]), [['busy', 1, 0], ['completed', 2, 2], ['failed', 1, 0], ['no_answer', 1, 0]]);
    assert.equal(groups.find((g) => g.value === 'completed').average_duration_seconds, 5);

    const byDirection = await sb.api().get(`/v1/analytics/calls?start=${day0}T00:00:00Z&end=${day2}T00:00:00Z&group_by=direction`);
    assert.deepEqual(byDirection.body.totals.groups.map((g: any) => [g.value, g.attempted]), [['outbound', 6]]);

    const byNumber = await sb.api().get(`/v1/analytics/calls?start=${day0}T00:00:00Z&end=${day2}T00:00:00Z&group_by=number`);
    assert.deepEqual(byNumber.body.totals.groups.map((g: any) => [g.value, g.attempted, g.answered]), [[sb.from, 6, 3]]);
    // Sandbox calls go over no SIP trunk: one group, '' (test/sip/post-dial-delay.test.ts groups live calls by their trunk).
    const byTrunk = await sb.api().get(`/v1/analytics/calls?start=${day0}T00:00:00Z&end=${day2}T00:00:00Z&group_by=trunk`);
    assert.equal(byTrunk.status, 200, JSON.stringify(byTrunk.body));
    assert.deepEqual(byTrunk.body.totals.groups.map((g: any) => [g.value, g.attempted, g.answered]), [['', 6, 3]]);
  });

  test('defaults: the last 30 days by day, ending at the test clock', async () => {
    const res = await sb.api().get('/v1/analytics/calls');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.interval, 'day');
    assert.equal(res.body.data.length, 31); // 30 days back from now, widened to whole days
    assert.equal(res.body.data.at(-1).start, `${day1}T00:00:00.000Z`);
    assert.equal(res.body.totals.attempted, 6);
  });

  test('bad windows are 400 problems naming the field', async () => {
    const backwards = await sb.api().get(`/v1/analytics/calls?start=${day1}T00:00:00Z&end=${day0}T00:00:00Z`);
    assert.equal(backwards.status, 400);
    assert.equal(backwards.body.code, 'validation_failed');
    assert.equal(backwards.body.errors[0].field, 'end');
    assert.equal(backwards.body.errors[0].code, 'too_small');

    const tooMany = await sb.api().get(`/v1/analytics/calls?start=${day0}T00:00:00Z&end=${day0}T00:00:00Z&interval=hour`.replace(`end=${day0}`, 'end=2099-01-01'));
    assert.equal(tooMany.status, 400);
    assert.equal(tooMany.body.errors[0].field, 'start');
    assert.equal(tooMany.body.errors[0].code, 'too_large');
    assert.match(tooMany.body.detail, /at most 744/);

    const week = await sb.api().get('/v1/analytics/calls?interval=week');
    assert.equal(week.status, 400);
    assert.equal(week.body.errors[0].field, 'interval');

    const notATime = await sb.api().get('/v1/analytics/calls?start=yesterday');
    assert.equal(notATime.status, 400);
    assert.equal(notATime.body.errors[0].field, 'start');

    const unknown = await sb.api().get('/v1/analytics/calls?group_by=queue');
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.errors[0].field, 'group_by');
  });
});

describe('GET /v1/analytics/messages', () => {
  test('sent, delivered, failed, delivery rate, segments, error codes and time to delivery', async () => {
    const res = await sb.api().get(`/v1/analytics/messages?start=${day0}T00:00:00Z&end=${day2}T00:00:00Z`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const [d0, d1] = res.body.data;
    assert.equal(res.body.object, 'message_analytics');
    assert.equal(d0.outbound, 4);
    assert.equal(d0.inbound, 0);
    assert.equal(d0.sent, 3); // the refused one never reached the network
    assert.equal(d0.delivered, 2);
    assert.equal(d0.failed, 2);
    assert.equal(d0.delivery_rate, 0.5);
    assert.equal(d0.segments, 5);
    assert.equal(d0.by_status.delivered, 2);
    assert.equal(d0.by_status.undelivered, 1);
    assert.equal(d0.by_status.failed, 1);
    assert.deepEqual(d0.by_error_code, { carrier_rejected: 1, unreachable_destination: 1 });
    // Time to delivery, checked by hand from the messages themselves: delivered_at - created_at.
    const took = async (id: string) => {
      const m = (await sb.api().get(`/v1/messages/${id}`)).body;
      return Date.parse(m.delivered_at) - Date.parse(m.created_at);
    };
    const day0Times = (await Promise.all(delivered[day0]!.map(took))).sort((a, b) => a - b);
    const day1Times = await Promise.all(delivered[day1]!.map(took));
    assert.ok(day0Times[0]! >= 3000, 'sent after 1 s, delivered 2 s later');
    // Nearest rank over two values: p50 is the faster (rank ceil(1.0) = 1), p95 the slower (rank ceil(1.9) = 2).
    assert.deepEqual(d0.time_to_delivery_ms, { p50: day0Times[0], p95: day0Times[1] });

    assert.equal(d1.outbound, 1);
    assert.equal(d1.delivered, 1);
    assert.equal(d1.delivery_rate, 1);
    assert.deepEqual(d1.time_to_delivery_ms, { p50: day1Times[0], p95: day1Times[0] }, 'one delivery: both percentiles are it');
    // Over both days, three deliveries: nearest rank puts p50 on the 2nd and p95 on the 3rd.
    const all = [...day0Times, ...day1Times].sort((a, b) => a - b);
    assert.deepEqual(res.body.totals.time_to_delivery_ms, { p50: all[1], p95: all[2] });
    assert.equal(res.body.totals.delivery_rate, 0.6);
  });

  test('inbound messages count as inbound; group_by=channel', async () => {
    const inbound = await sb.api().post('/v1/sandbox/inbound_messages', { from: '+447700900123', to: sb.from, body: 'hi' });
    assert.equal(inbound.status, 200, JSON.stringify(inbound.body));
    const res = await sb.api().get(`/v1/analytics/messages?start=${day1}T00:00:00Z&end=${day2}T00:00:00Z&group_by=channel`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const [d1] = res.body.data;
    assert.equal(d1.inbound, 1);
    assert.equal(d1.outbound, 1);
    assert.deepEqual(d1.groups.map((g: any) => [g.value, g.outbound, g.inbound, g.delivered]), [['sms', 1, 1, 1]]);
    assert.equal(d1.groups[0].time_to_delivery_ms.p50, d1.time_to_delivery_ms.p50);
  });
});

describe('GET /v1/usage', () => {
  test('a usage record per UTC day: minutes by direction, messages and segments by channel', async () => {
    const res = await sb.api().get(`/v1/usage?start=${day0}T00:00:00Z&end=${day2}T00:00:00Z`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.object, 'usage');
    const [d0, d1] = res.body.data;
    assert.equal(d0.object, 'usage_record');
    assert.equal(d0.date, day0);
    assert.deepEqual(d0.calls.outbound, { calls: 5, answered: 2, seconds: 10, minutes: 2 });
    assert.deepEqual(d0.calls.inbound, { calls: 0, answered: 0, seconds: 0, minutes: 0 });
    assert.deepEqual(d0.messages.sms, { outbound: 4, inbound: 0, segments: 5 });
    assert.deepEqual(d0.messages.whatsapp, { outbound: 0, inbound: 0, segments: 0 });
    assert.deepEqual(d0.recordings, { count: 0, seconds: 0, bytes: 0 });
    assert.equal(d0.ai_conversations, 0);
    assert.equal(d1.date, day1);
    assert.equal(d1.calls.outbound.minutes, 1);
    assert.equal(res.body.totals.calls.outbound.calls, 6);
    assert.equal(res.body.totals.calls.outbound.minutes, 3);
  });

  test('usage needs account:read; call analytics calls:read', async () => {
    const key = await sb.api().post('/v1/keys', { name: 'messages only', scopes: ['messages:read'] });
    assert.equal(key.status, 200, JSON.stringify(key.body));
    const limited = sb.server.as(key.body.secret);
    assert.equal((await limited.get('/v1/analytics/messages')).status, 200);
    const calls = await limited.get('/v1/analytics/calls');
    assert.equal(calls.status, 403);
    assert.equal(calls.body.code, 'insufficient_scope');
    assert.equal((await limited.get('/v1/usage')).status, 403);
  });
});

describe('isolation', () => {
  test('a live key sees live data only: none of the sandbox calls and messages', async () => {
    const live = sb.server.as(sb.account.keys.live);
    const calls = await live.get('/v1/analytics/calls?interval=day');
    assert.equal(calls.status, 200, JSON.stringify(calls.body));
    assert.equal(calls.body.mode, 'live');
    assert.equal(calls.body.totals.attempted, 0);
    const messages = await live.get('/v1/analytics/messages');
    assert.equal(messages.body.totals.outbound, 0);
    const usage = await live.get('/v1/usage');
    assert.equal(usage.body.totals.calls.outbound.calls, 0);
  });

  test("another account's data is never counted", async () => {
    const other = await sb.server.createAccount('scale');
    const api = sb.server.as(other.keys.sandbox);
    const calls = await api.get(`/v1/analytics/calls?start=${day0}T00:00:00Z&end=${day2}T00:00:00Z`);
    assert.equal(calls.status, 200);
    assert.equal(calls.body.totals.attempted, 0);
    const messages = await api.get(`/v1/analytics/messages?start=${day0}T00:00:00Z&end=${day2}T00:00:00Z`);
    assert.equal(messages.body.totals.outbound, 0);
    assert.equal(messages.body.totals.time_to_delivery_ms.p50, null);
    const usage = await api.get(`/v1/usage?start=${day0}T00:00:00Z&end=${day2}T00:00:00Z`);
    assert.deepEqual(usage.body.totals.messages.sms, { outbound: 0, inbound: 0, segments: 0 });
  });
});
});
