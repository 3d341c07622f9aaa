import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { importLiveNumber } from '../helpers/live-number.ts';
import { MAGIC, ORDINARY, eventsOf, waitForTypes } from './voice-helpers.ts';
import { defaultSecretReceiver } from '../helpers/subscribe.ts';
import { useSandboxAccount } from '../helpers/sandbox-account.ts';

const sandbox = useSandboxAccount();
const api = () => sandbox.api();

async function place(to: string, extra: Record<string, unknown> = {}) {
  const res = await api().post('/v1/calls', { from: sandbox.from, to, record: false, ...extra });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

describe('POST /v1/calls', () => {
  test('answers 200 with the spec fields, then rings, answers, talks 5 s and completes', async () => {
    const res = await api().post('/v1/calls', { from: sandbox.from, to: ORDINARY, record: false });
    assert.equal(res.status, 200);
    const call = res.body;
    assert.match(call.id, /^call_[0-9a-z]{26}$/);
    assert.equal(call.status, 'queued');
    assert.equal(call.recording, false);
    assert.equal(call.webhook_url, sandbox.receiver.url, 'no own URL: the subscription that receives its events');
    assert.equal(call.from, sandbox.from);
    assert.equal(call.to, ORDINARY);
    assert.equal(call.timeout, 30);
    assert.deepEqual(call.transfers, []);

    const events = await waitForTypes(sandbox.receiver, call.id, ['call.queued', 'call.ringing', 'call.answered', 'call.completed']);
    const completed = events.at(-1)!.data.object;
    assert.equal(completed.status, 'completed');
    assert.equal(completed.duration_seconds, 5);
    assert.equal(completed.hangup_cause, 'normal_clearing');
    assert.equal(completed.hangup_source, 'callee');
    assert.deepEqual(Object.keys(completed.timestamps).sort(), ['completed', 'in_progress', 'queued', 'ringing']);
    assert.equal(completed.answered_at, completed.timestamps.in_progress);
    assert.equal(completed.ended_at, completed.timestamps.completed);

    const fetched = await api().get(`/v1/calls/${call.id}`);
    assert.equal(fetched.status, 200);
    assert.deepEqual(fetched.body, completed);
  });

  test('`recording` reflects `record`', async () => {
    const call = await place(MAGIC.busy, { record: true });
    assert.equal(call.recording, true);
    await waitForTypes(sandbox.receiver, call.id, ['call.queued', 'call.busy', 'call.completed']);
  });

  test('the call\'s own webhook_url receives its events, signed with the default secret', async () => {
    const own = await defaultSecretReceiver(sandbox.server, sandbox.account.keys.sandbox);
    try {
      const call = await place(ORDINARY, { webhook_url: own.url });
      assert.equal(call.webhook_url, own.url);
      await waitForTypes(own, call.id, ['call.queued', 'call.ringing', 'call.answered', 'call.completed']);
      assert.ok(own.deliveries.every((d) => d.verifiedWith.includes(0)), 'signed with the default secret');
    } finally {
      await own.close();
    }
  });

  test('metadata, timeout and time_limit are kept', async () => {
    const call = await place(MAGIC.staysUp, { metadata: { order: '42' }, timeout: 12, time_limit: 3 });
    assert.deepEqual(call.metadata, { order: '42' });
    assert.equal(call.timeout, 12);
    assert.equal(call.time_limit, 3);
    const events = await waitForTypes(sandbox.receiver, call.id, ['call.queued', 'call.ringing', 'call.answered', 'call.completed']);
    const ended = events.at(-1)!.data.object;
    assert.equal(ended.hangup_cause, 'time_limit_reached');
    assert.equal(ended.hangup_source, 'system');
    assert.equal(ended.duration_seconds, 3);
  });
});

// issue 10.3: every call that ends emits call.completed once, last, with its final status,
// hangup_cause, hangup_reason and failure (busy, no_answer, failed here; canceled and completed below).
describe('the simulated carrier\'s magic numbers', () => {
  test('+15005550001 is busy', async () => {
    const call = await place(MAGIC.busy);
    const [, busy, completed] = await waitForTypes(sandbox.receiver, call.id, ['call.queued', 'call.busy', 'call.completed']);
    assert.equal(busy!.data.object.status, 'busy');
    assert.equal(busy!.data.object.hangup_cause, 'user_busy');
    assert.equal(busy!.data.object.duration_seconds, 0);
    assert.equal(busy!.data.object.answered_at, null);
    assert.ok(busy!.data.object.ended_at);
    assert.deepEqual(busy!.data.object.failure, { code: 'user_busy', message: 'The called party was busy.', carrier_code: null });
    assert.equal(busy!.data.object.hangup_reason, 'The called party was busy.');
    // call.completed carries the same final call: a customer subscribed only to it learns of the busy call.
    assert.deepEqual(completed!.data.object, busy!.data.object);
  });

  test('+15005550002 rings until the timeout and ends no_answer', async () => {
    const call = await place(MAGIC.noAnswer, { timeout: 2 });
    const events = await waitForTypes(sandbox.receiver, call.id, ['call.queued', 'call.ringing', 'call.no_answer', 'call.completed']);
    assert.equal(events[2]!.data.object.hangup_cause, 'no_answer');
    assert.equal(events[2]!.data.object.hangup_source, 'carrier');
    assert.equal(events[3]!.data.object.status, 'no_answer');
    assert.deepEqual(events[3]!.data.object.failure, { code: 'no_answer', message: 'The called party did not answer within the ring timeout (2 s).', carrier_code: null });
  });

  test('+15005550003 fails with a hangup cause', async () => {
    const call = await place(MAGIC.failed);
    const [, failed, completed] = await waitForTypes(sandbox.receiver, call.id, ['call.queued', 'call.failed', 'call.completed']);
    assert.equal(failed!.data.object.hangup_cause, 'network_out_of_order');
    assert.equal(failed!.data.object.hangup_source, 'carrier');
    assert.equal(completed!.data.object.status, 'failed');
    assert.equal(completed!.data.object.failure.code, 'network_out_of_order');
    assert.match(completed!.data.object.hangup_reason, /could not reach/);
  });

  test('+15005550004 stays up until hung up; hangup completes it', async () => {
    const call = await place(MAGIC.staysUp);
    await sandbox.receiver.waitForEvent('call.answered', call.id);
    const up = await api().get(`/v1/calls/${call.id}`);
    assert.equal(up.body.status, 'in_progress');
    const hung = await api().post(`/v1/calls/${call.id}/hangup`);
    assert.equal(hung.status, 200);
    assert.equal(hung.body.status, 'completed');
    assert.equal(hung.body.hangup_source, 'caller');
    assert.equal(hung.body.hangup_cause, 'normal_clearing');
    assert.ok(Number.isInteger(hung.body.duration_seconds));
    const events = await waitForTypes(sandbox.receiver, call.id, ['call.queued', 'call.ringing', 'call.answered', 'call.completed']);
    assert.equal(events[3]!.data.object.failure, null);
    assert.equal(events[3]!.data.object.hangup_reason, 'The call was hung up through the API (POST /v1/calls/{id}/hangup).');
    // Hanging up an ended call again is safe: 200 with the call, unchanged, and no new event.
    const again = await api().post(`/v1/calls/${call.id}/hangup`);
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, events[3]!.data.object);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(eventsOf(sandbox.receiver, call.id).length, 4);
  });

  test('the sandbox test clock moves calls: advancing past the ring timeout ends the call no_answer at once', async () => {
    const other = await sandbox.server.createAccount('scale');
    const mine = sandbox.server.as(other.keys.sandbox);
    const call = (await mine.post('/v1/calls', { from: other.numbers.sandbox[0], to: MAGIC.noAnswer, timeout: 600, record: false })).body;
    for (let i = 0; i < 100 && (await mine.get(`/v1/calls/${call.id}`)).body.status !== 'ringing'; i++) await new Promise((r) => setTimeout(r, 20));
    const advanced = await mine.post('/v1/sandbox/clock/advance', { seconds: 3600 });
    assert.equal(advanced.status, 200, JSON.stringify(advanced.body));
    const after = await mine.get(`/v1/calls/${call.id}`);
    assert.equal(after.body.status, 'no_answer', 'the 6 s (scaled) ring timeout ran during the advance');
    assert.ok(after.body.ended_at > call.created_at);
    assert.ok(Date.parse(after.body.ended_at) - Date.parse(call.created_at) >= 3_600_000 - 1000, 'stamped on the test clock');
  });

  test('hanging up a ringing call cancels it', async () => {
    const call = await place(MAGIC.noAnswer, { timeout: 600 });
    await sandbox.receiver.waitForEvent('call.ringing', call.id);
    const hung = await api().post(`/v1/calls/${call.id}/hangup`);
    assert.equal(hung.status, 200);
    assert.equal(hung.body.status, 'canceled');
    assert.equal(hung.body.hangup_cause, 'originator_cancel');
    assert.equal(hung.body.duration_seconds, 0);
    const events = await waitForTypes(sandbox.receiver, call.id, ['call.queued', 'call.ringing', 'call.canceled', 'call.completed']);
    assert.deepEqual(events[3]!.data.object.failure, { code: 'originator_cancel', message: 'The call was hung up before it was answered.', carrier_code: null });
  });
});

describe('POST /v1/calls/{id}/transfer', () => {
  async function liveCall() {
    const call = await place(MAGIC.staysUp);
    await sandbox.receiver.waitForEvent('call.answered', call.id);
    return call;
  }

  test('a blind transfer to an ordinary number connects; the new party talks 5 s and hangs up', async () => {
    const call = await liveCall();
    const res = await api().post(`/v1/calls/${call.id}/transfer`, { to: ORDINARY });
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'in_progress');
    assert.equal(res.body.transfers.length, 1);
    assert.equal(res.body.transfers[0].to, ORDINARY);
    assert.equal(res.body.transfers[0].status, 'pending');
    const events = await waitForTypes(sandbox.receiver, call.id, ['call.queued', 'call.ringing', 'call.answered', 'call.transfer_started', 'call.transferred', 'call.completed']);
    assert.equal(events[3]!.data.object.transfers[0].status, 'pending', 'call.transfer_started: the target rings (issue 10.4)');
    assert.equal(events[4]!.data.object.transfers[0].status, 'completed');
    assert.ok(events[4]!.data.object.transfers[0].settled_at);
    assert.equal(events[5]!.data.object.hangup_cause, 'normal_clearing');
    assert.equal(events[5]!.data.object.hangup_source, 'callee');
  });

  test('a busy target fails the transfer and the call stays up; a second transfer may follow', async () => {
    const call = await liveCall();
    const first = await api().post(`/v1/calls/${call.id}/transfer`, { to: MAGIC.rejectsTransfers });
    assert.equal(first.status, 200);
    const conflict = await api().post(`/v1/calls/${call.id}/transfer`, { to: MAGIC.busy });
    // Either the first is still pending (409 conflict) or it already failed (200): never two pending.
    assert.ok(conflict.status === 409 || conflict.status === 200, JSON.stringify(conflict.body));
    if (conflict.status === 409) assert.equal(conflict.body.code, 'conflict');
    const failed = await sandbox.receiver.waitForEvent('call.transfer_failed', call.id);
    assert.equal(failed.data.object.status, 'in_progress');
    assert.equal(failed.data.object.transfers[0].status, 'busy');
    const now = await api().get(`/v1/calls/${call.id}`);
    assert.equal(now.body.status, 'in_progress');

    const noAnswer = await liveCall();
    await api().post(`/v1/calls/${noAnswer.id}/transfer`, { to: MAGIC.noAnswer, timeout: 1 });
    const unanswered = await sandbox.receiver.waitForEvent('call.transfer_failed', noAnswer.id);
    assert.equal(unanswered.data.object.transfers[0].status, 'no_answer');
    assert.equal(unanswered.data.object.status, 'in_progress');

    for (const id of [call.id, noAnswer.id]) assert.equal((await api().post(`/v1/calls/${id}/hangup`)).status, 200);
  });

  test('a call that is not in progress cannot be transferred: 409 call_not_in_progress', async () => {
    const call = await place(MAGIC.busy);
    await sandbox.receiver.waitForEvent('call.busy', call.id);
    const res = await api().post(`/v1/calls/${call.id}/transfer`, { to: ORDINARY });
    assert.equal(res.status, 409);
    assert.equal(res.body.code, 'call_not_in_progress');
  });

  test('hanging up while a transfer rings cancels the transfer', async () => {
    const call = await liveCall();
    await api().post(`/v1/calls/${call.id}/transfer`, { to: MAGIC.noAnswer, timeout: 600 });
    const hung = await api().post(`/v1/calls/${call.id}/hangup`);
    assert.equal(hung.body.status, 'completed');
    assert.equal(hung.body.transfers[0].status, 'canceled');
  });
});

describe('validation, ownership and modes', () => {
  test('numbers must be E.164 (libphonenumber)', async () => {
    for (const [field, value] of [['to', '12345'], ['to', '+1 415 555 0100'], ['from', 'not a number'], ['to', '+1999']] as const) {
      const res = await api().post('/v1/calls', { from: sandbox.from, to: ORDINARY, record: false, [field]: value });
      assert.equal(res.status, 400, `${field}=${value}`);
      assert.equal(res.body.code, 'validation_failed');
      assert.equal(res.body.errors[0].field, field);
    }
    const unknown = await api().post('/v1/calls', { from: sandbox.from, to: ORDINARY, record: false, colour: 'red' });
    assert.equal(unknown.status, 400);
  });

  test('from must be an active voice number of the account in this mode: 422 from_number_not_owned', async () => {
    const other = await sandbox.server.createAccount('scale');
    for (const number of ['+14155550123', other.numbers.sandbox[0]!]) {
      const res = await api().post('/v1/calls', { from: number, to: ORDINARY, record: false });
      assert.equal(res.status, 422);
      assert.equal(res.body.code, 'from_number_not_owned');
    }
  });

  test('a webhook_url the URL policy refuses is a 422', async () => {
    const res = await api().post('/v1/calls', { from: sandbox.from, to: ORDINARY, record: false, webhook_url: 'ftp://example.com/hook' });
    assert.equal(res.status, 422);
    assert.equal(res.body.code, 'webhook_url_not_allowed');
  });

  // issue 10.9: a permanent refusal is a 4xx, decided after validation.
  test('live mode without a real carrier: 422 carrier_not_configured after validation, and nothing is created', async () => {
    const live = sandbox.server.as(sandbox.account.keys.live);
    // A bad request is told what is wrong with it first.
    const bad = await live.post('/v1/calls', { from: sandbox.from, to: '12', record: false });
    assert.equal(bad.status, 400);
    const badUrl = await live.post('/v1/calls', { from: sandbox.from, to: ORDINARY, record: false, webhook_url: 'ftp://example.com/hook' });
    assert.equal(badUrl.status, 422);
    assert.equal(badUrl.body.code, 'webhook_url_not_allowed');
    // A valid one (from a live number of the account) learns that a retry will not help: a 4xx, not a 503.
    const liveFrom = await importLiveNumber(sandbox.server, sandbox.account.account.id, '+12125550188');
    const res = await live.post('/v1/calls', { from: liveFrom, to: ORDINARY, record: false });
    assert.equal(res.status, 422);
    assert.equal(res.body.code, 'carrier_not_configured');
    assert.match(res.body.detail, /sandbox/);
    assert.equal(res.headers.get('content-type'), 'application/problem+json; charset=utf-8');
    const list = await live.get('/v1/calls');
    assert.deepEqual(list.body.data, []);
    assert.equal((await live.get('/v1/account')).body.usage.concurrent_calls, 0);
  });

  test('a sandbox call is invisible to a live key: 404', async () => {
    const call = await place(MAGIC.busy);
    for (const res of [
      await sandbox.server.as(sandbox.account.keys.live).get(`/v1/calls/${call.id}`),
      await sandbox.server.as(sandbox.account.keys.live).post(`/v1/calls/${call.id}/hangup`),
    ]) {
      assert.equal(res.status, 404);
      assert.equal(res.body.code, 'not_found');
    }
  });
});

describe('GET /v1/calls', () => {
  test('filters by status, from, to and created range, newest first, with cursor pages', async () => {
    const other = await sandbox.server.createAccount('scale');
    const mine = sandbox.server.as(other.keys.sandbox);
    const otherFrom = other.numbers.sandbox[0]!;
    const ids: string[] = [];
    for (const to of [MAGIC.busy, MAGIC.failed, MAGIC.busy, MAGIC.failed, MAGIC.busy]) {
      const res = await mine.post('/v1/calls', { from: otherFrom, to, record: false });
      assert.equal(res.status, 200);
      ids.push(res.body.id);
    }
    // Wait for all five to end (busy and failed end at the first carrier step).
    for (let i = 0; i < 200; i++) {
      const open = await mine.get('/v1/calls?status=queued');
      if (open.body.data.length === 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const newestFirst = [...ids].reverse();
    const page1 = await mine.get('/v1/calls?limit=2');
    assert.deepEqual(page1.body.data.map((c: any) => c.id), newestFirst.slice(0, 2));
    assert.equal(page1.body.has_more, true);
    const page2 = await mine.get(`/v1/calls?limit=2&starting_after=${page1.body.next_cursor}`);
    assert.deepEqual(page2.body.data.map((c: any) => c.id), newestFirst.slice(2, 4));
    const page3 = await mine.get(`/v1/calls?limit=2&starting_after=${page2.body.next_cursor}`);
    assert.deepEqual(page3.body.data.map((c: any) => c.id), newestFirst.slice(4));
    assert.equal(page3.body.has_more, false);
    assert.equal(page3.body.next_cursor, null);

    const busy = await mine.get('/v1/calls?status=busy');
    assert.deepEqual(busy.body.data.map((c: any) => c.id), [ids[4], ids[2], ids[0]]);
    const toFailed = await mine.get(`/v1/calls?to=${encodeURIComponent(MAGIC.failed)}`);
    assert.deepEqual(toFailed.body.data.map((c: any) => c.id), [ids[3], ids[1]]);
    const byFrom = await mine.get(`/v1/calls?from=${encodeURIComponent(otherFrom)}&limit=100`);
    assert.equal(byFrom.body.data.length, 5);
    const none = await mine.get(`/v1/calls?from=${encodeURIComponent(sandbox.from)}`);
    assert.deepEqual(none.body.data, []);

    const third = (await mine.get(`/v1/calls/${ids[2]}`)).body;
    const after = await mine.get(`/v1/calls?created_gte=${encodeURIComponent(third.created_at)}&limit=100`);
    assert.ok(after.body.data.every((c: any) => c.created_at >= third.created_at));
    assert.ok(after.body.data.some((c: any) => c.id === ids[2]));
    const before = await mine.get(`/v1/calls?created_lte=${encodeURIComponent(third.created_at)}&limit=100`);
    assert.ok(before.body.data.every((c: any) => c.created_at <= third.created_at));
    assert.ok(before.body.data.some((c: any) => c.id === ids[2]));
    const sameInstant = before.body.data.filter((c: any) => c.created_at === third.created_at).length;
    assert.equal(before.body.data.length + after.body.data.length - sameInstant, 5);

    const bad = await mine.get('/v1/calls?status=sideways');
    assert.equal(bad.status, 400);
  });
});

describe('GET /v1/account', () => {
  test('shows the calls queued, ringing or in progress', async () => {
    const other = await sandbox.server.createAccount('growth');
    const mine = sandbox.server.as(other.keys.sandbox);
    // Read first, so the count is cached: each change must still show at once.
    assert.equal((await mine.get('/v1/account')).body.usage.concurrent_calls, 0);
    const res = await mine.post('/v1/calls', { from: other.numbers.sandbox[0], to: MAGIC.staysUp, record: false });
    assert.equal((await mine.get('/v1/account')).body.usage.concurrent_calls, 1);
    await mine.post(`/v1/calls/${res.body.id}/hangup`);
    assert.equal((await mine.get('/v1/account')).body.usage.concurrent_calls, 0);

    // A call the simulator ends by itself (a job, not a request) leaves the count at once too.
    const ordinary = await mine.post('/v1/calls', { from: other.numbers.sandbox[0], to: ORDINARY, record: false });
    assert.equal((await mine.get('/v1/account')).body.usage.concurrent_calls, 1);
    while ((await mine.get(`/v1/calls/${ordinary.body.id}`)).body.status !== 'completed') await new Promise((r) => setTimeout(r, 10));
    assert.equal((await mine.get('/v1/account')).body.usage.concurrent_calls, 0);
    assert.equal(eventsOf(sandbox.receiver, res.body.id).length, 0, 'another account\'s events never reach this receiver');
  });
});
