import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { subscribeAll } from '../helpers/subscribe.ts';
import type { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { addBusinessDays, businessDaysBetween, US_FEDERAL_HOLIDAYS_2026_2027 } from '../../src/telephony/business-days.ts';

let t: TestServer;
const receivers: WebhookReceiver[] = [];

before(async () => {
  t = await startTestServer();
});
after(async () => {
  for (const r of receivers) await r.close();
  await t.close();
});

const ADDRESS = { street: '1 Market St', city: 'San Francisco', region: 'CA', postal_code: '94105', country: 'US' };

function order(phone_numbers: string[], extra: Record<string, unknown> = {}) {
  return { phone_numbers, losing_carrier: 'Acme Telecom', account_number: 'ACME-778899', pin: '4321', authorized_name: 'Ada Lovelace', service_address: ADDRESS, ...extra };
}

/** A fresh account (own test clock) with a verifying receiver subscribed to all its events. */
async function setup() {
  const acct = await t.createAccount('scale');
  const hooks = await subscribeAll(t, acct.keys.sandbox);
  receivers.push(hooks);
  return { acct, api: t.as(acct.keys.sandbox), hooks };
}

describe('porting in', () => {
  test('a full port: temporary numbers at once, FOC in 5-10 business days, number.ported after a test-clock advance', async () => {
    const { api, hooks } = await setup();
    const created = await api.post('/v1/numbers/ports', order(['+12126661234', '+12126661235'], { capabilities: ['voice', 'sms'] }));
    assert.equal(created.status, 200);
    const port = created.body;
    assert.match(port.id, /^port_/);
    assert.equal(port.status, 'submitted');
    assert.equal(port.foc_date, null);
    assert.equal('pin' in port, false, 'the PIN is never returned');
    assert.equal(port.phone_numbers.length, 2);
    for (const entry of port.phone_numbers) {
      assert.equal(entry.status, 'porting');
      assert.match(entry.temporary_number.phone_number, /^\+1212555\d{4}$/, 'a temporary number in the same area code');
      const temp = await api.get(`/v1/numbers/${entry.temporary_number.id}`);
      assert.equal(temp.body.status, 'active');
      assert.equal(temp.body.temporary, true);
      assert.equal(temp.body.temporary_for, entry.phone_number);
      assert.deepEqual(temp.body.capabilities, ['voice', 'sms']);
    }
    // The temporary number works from the first minute.
    const sms = await api.post('/v1/messages', { from: port.phone_numbers[0].temporary_number.phone_number, to: '+14155550100', body: 'hello' });
    assert.equal(sms.status, 200);
    // The number being ported cannot send yet.
    const early = await api.post('/v1/messages', { from: '+12126661234', to: '+14155550100', body: 'hello' });
    assert.equal(early.status, 422);
    assert.equal(early.body.code, 'from_number_not_owned');

    // Static /v1/numbers/ports routes are not taken for /v1/numbers/:id.
    const listed = await api.get('/v1/numbers/ports');
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.body.data.map((p: any) => p.id), [port.id]);

    const clock0 = (await api.get('/v1/sandbox/clock')).body;
    assert.equal(clock0.object, 'sandbox_clock');
    assert.equal(clock0.offset_seconds, 0);

    // The losing carrier answers a minute later (sandbox time) with a FOC date.
    const advanced = await api.post('/v1/sandbox/clock/advance', { seconds: 60 });
    assert.equal(advanced.status, 200);
    assert.equal(advanced.body.offset_seconds, 60);
    assert.ok(Number.isInteger(advanced.body.jobs_run), 'the jobs that fell due ran before the answer (the worker may have run some already)');
    const scheduled = (await api.get(`/v1/numbers/ports/${port.id}`)).body;
    assert.equal(scheduled.status, 'foc_scheduled');
    const days = businessDaysBetween(new Date(port.submitted_at), new Date(scheduled.foc_date), US_FEDERAL_HOLIDAYS_2026_2027);
    assert.ok(days >= 5 && days <= 10, `FOC ${scheduled.foc_date} is ${days} business days out`);
    assert.ok(![0, 6].includes(new Date(scheduled.foc_date).getUTCDay()), 'FOC is never on a weekend');
    assert.ok(!US_FEDERAL_HOLIDAYS_2026_2027.includes(scheduled.foc_date.slice(0, 10)), 'FOC is never on a holiday');

    // Ten business days later every port has completed.
    const tenDays = addBusinessDays(new Date(port.submitted_at), 10, US_FEDERAL_HOLIDAYS_2026_2027);
    const moved = await api.post('/v1/sandbox/clock/advance', { to: tenDays.toISOString() });
    assert.equal(moved.status, 200);
    assert.ok(moved.body.now >= tenDays.toISOString(), 'the clock moved to the requested time (and real time goes on)');
    const done = (await api.get(`/v1/numbers/ports/${port.id}`)).body;
    assert.equal(done.status, 'completed');
    assert.ok(done.completed_at >= scheduled.foc_date && done.completed_at >= tenDays.toISOString(), 'stamped by the test clock, at or after the FOC');
    for (const entry of done.phone_numbers) {
      assert.equal(entry.status, 'active');
      const number = (await api.get(`/v1/numbers/${entry.number_id}`)).body;
      assert.equal(number.status, 'active');
      assert.equal(number.port_id, port.id);
      assert.equal(number.temporary, false);
      // Temporary numbers stay until the customer releases them.
      assert.equal((await api.get(`/v1/numbers/${entry.temporary_number.id}`)).body.status, 'active');
    }
    const ported = await api.post('/v1/messages', { from: '+12126661234', to: '+14155550100', body: 'now from my own number' });
    assert.equal(ported.status, 200);

    const events = await hooks.waitFor((evs) => evs.filter((e) => e.type === 'number.ported').length === 2
      && evs.some((e) => e.type === 'number.port.completed'));
    const portEvents = events.filter((e) => e.data.object.id === port.id).sort((a, b) => a.sequence - b.sequence);
    assert.deepEqual(portEvents.map((e) => e.type), ['number.port.submitted', 'number.port.foc_scheduled', 'number.port.completed']);
    assert.deepEqual(portEvents.map((e) => e.sequence), [1, 2, 3]);
    const portedEvents = events.filter((e) => e.type === 'number.ported');
    assert.deepEqual(portedEvents.map((e) => e.data.object.phone_number).sort(), ['+12126661234', '+12126661235']);
    for (const e of portedEvents) {
      assert.equal(e.data.object.status, 'active');
      assert.ok(e.created_at >= tenDays.toISOString(), 'event time is the test clock\'s');
    }
    const temporaryProvisioned = events.filter((e) => e.type === 'number.provisioned' && e.data.object.temporary);
    assert.equal(temporaryProvisioned.length, 2);
  });

  test('exception: a wrong PIN stops the order until PATCH fixes it; then it is resubmitted', async () => {
    const { api, hooks } = await setup();
    const port = (await api.post('/v1/numbers/ports', order(['+13036661000'], { pin: '0000' }))).body;
    // No PATCH while the order is `submitted`: the test clock runs in (scaled) real time, so the
    // losing carrier may answer 0.6 s after the POST, before any request of ours, and the order
    // is then in exception. The refusal is checked below on an order whose state cannot move.
    await api.post('/v1/sandbox/clock/advance', { seconds: 60 });
    const stuck = (await api.get(`/v1/numbers/ports/${port.id}`)).body;
    assert.equal(stuck.status, 'exception');
    assert.equal(stuck.exception.code, 'wrong_pin');
    assert.deepEqual(stuck.failure, { code: 'wrong_pin', message: stuck.exception.detail, carrier_code: null });
    const fixed = await api.patch(`/v1/numbers/ports/${port.id}`, { pin: '1234' });
    assert.equal(fixed.status, 200);
    assert.equal(fixed.body.status, 'submitted');
    assert.equal(fixed.body.exception, null);
    assert.equal(fixed.body.failure, null);
    assert.ok(fixed.body.submitted_at > port.submitted_at, 'resubmission restarts the FOC count');
    await api.post('/v1/sandbox/clock/advance', { seconds: 60 });
    assert.equal((await api.get(`/v1/numbers/ports/${port.id}`)).body.status, 'foc_scheduled');
    // Its FOC is business days away, so it stays foc_scheduled while the PATCH runs.
    const notInException = await api.patch(`/v1/numbers/ports/${port.id}`, { pin: '5678' });
    assert.equal(notInException.status, 409, 'only an order in exception can be changed');
    assert.equal(notInException.body.code, 'invalid_state_transition');
    const events = await hooks.waitFor((evs) => evs.filter((e) => e.data.object.id === port.id).length >= 4);
    assert.deepEqual(events.filter((e) => e.data.object.id === port.id).sort((a, b) => a.sequence - b.sequence).map((e) => e.type),
      ['number.port.submitted', 'number.port.exception', 'number.port.submitted', 'number.port.foc_scheduled']);
  });

  test('an account number the losing carrier does not know is an exception too', async () => {
    const { api } = await setup();
    const port = (await api.post('/v1/numbers/ports', order(['+13036661001'], { account_number: 'MISMATCH-1' }))).body;
    await api.post('/v1/sandbox/clock/advance', { seconds: 60 });
    const stuck = (await api.get(`/v1/numbers/ports/${port.id}`)).body;
    assert.equal(stuck.status, 'exception');
    assert.equal(stuck.exception.code, 'account_number_mismatch');
  });

  test('rejection: the number on the order is released, the temporary number stays', async () => {
    const { api, hooks } = await setup();
    const port = (await api.post('/v1/numbers/ports', order(['+16176661000'], { account_number: 'REJECT-42' }))).body;
    await api.post('/v1/sandbox/clock/advance', { seconds: 60 });
    const rejected = (await api.get(`/v1/numbers/ports/${port.id}`)).body;
    assert.equal(rejected.status, 'rejected');
    assert.ok(rejected.rejection_reason);
    assert.deepEqual(rejected.failure, { code: 'rejected_by_losing_carrier', message: rejected.rejection_reason, carrier_code: null });
    assert.ok(rejected.rejected_at);
    assert.equal(rejected.phone_numbers[0].status, 'released');
    assert.equal((await api.get(`/v1/numbers/${rejected.phone_numbers[0].temporary_number.id}`)).body.status, 'active');
    const cancel = await api.post(`/v1/numbers/ports/${port.id}/cancel`);
    assert.equal(cancel.status, 409);
    assert.equal(cancel.body.code, 'invalid_state_transition');
    await hooks.waitForEvent('number.port.rejected', port.id);
    const released = await hooks.waitForEvent('number.released', rejected.phone_numbers[0].number_id);
    assert.equal(released.data.object.status, 'released');
    // The number can be ordered again.
    assert.equal((await api.post('/v1/numbers/ports', order(['+16176661000']))).status, 200);
  });

  test('cancel: accepted before the FOC, refused within 48 hours of it', async () => {
    const { api, hooks } = await setup();
    const early = (await api.post('/v1/numbers/ports', order(['+15126661000']))).body;
    const canceled = await api.post(`/v1/numbers/ports/${early.id}/cancel`);
    assert.equal(canceled.status, 200);
    assert.equal(canceled.body.status, 'canceled');
    assert.equal(canceled.body.phone_numbers[0].status, 'released');
    await hooks.waitForEvent('number.port.canceled', early.id);

    const late = (await api.post('/v1/numbers/ports', order(['+15126661001']))).body;
    await api.post('/v1/sandbox/clock/advance', { seconds: 60 });
    const scheduled = (await api.get(`/v1/numbers/ports/${late.id}`)).body;
    assert.equal(scheduled.status, 'foc_scheduled');
    const focMs = Date.parse(scheduled.foc_date);
    await api.post('/v1/sandbox/clock/advance', { to: new Date(focMs - 49 * 3_600_000).toISOString() });
    assert.equal((await api.get(`/v1/numbers/ports/${late.id}`)).body.status, 'foc_scheduled');
    await api.post('/v1/sandbox/clock/advance', { to: new Date(focMs - 47 * 3_600_000).toISOString() });
    const refused = await api.post(`/v1/numbers/ports/${late.id}/cancel`);
    assert.equal(refused.status, 409);
    assert.equal(refused.body.code, 'port_cancel_too_late');
    assert.equal((await api.get(`/v1/numbers/ports/${late.id}`)).body.status, 'foc_scheduled');
  });

  test('orders and clocks refuse what they cannot do', async () => {
    const { acct, api } = await setup();
    // issue 10.9: live without a carrier is a 4xx after validation.
    const live = await t.as(acct.keys.live).post('/v1/numbers/ports', order(['+17026661000']));
    assert.equal(live.status, 422);
    assert.equal(live.body.code, 'carrier_not_configured');
    const taken = await api.post('/v1/numbers/ports', order([acct.numbers.sandbox[0]!]));
    assert.equal(taken.status, 409);
    assert.equal(taken.body.code, 'number_not_available');
    const duplicate = await api.post('/v1/numbers/ports', order(['+17026661000', '+17026661000']));
    assert.equal(duplicate.status, 400);
    assert.equal((await api.get('/v1/numbers/ports/port_nope')).status, 404);

    assert.equal((await t.as(acct.keys.live).get('/v1/sandbox/clock')).body.code, 'mode_not_supported');
    assert.equal((await t.as(acct.keys.live).post('/v1/sandbox/clock/advance', { seconds: 5 })).status, 403);
    const past = await api.post('/v1/sandbox/clock/advance', { to: '2020-01-01T00:00:00Z' });
    assert.equal(past.status, 400);
    assert.equal(past.body.errors[0].field, 'to');
    assert.equal((await api.post('/v1/sandbox/clock/advance', { seconds: 0 })).status, 400);
    assert.equal((await api.post('/v1/sandbox/clock/advance', { seconds: 5, to: '2030-01-01T00:00:00Z' })).status, 400);
  });
});
