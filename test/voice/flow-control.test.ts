// Live control through HTTP: POST /v1/calls/{id}/flow replaces what a call in progress does
// (interrupting a long say, or a gather with what it had), inline or from a URL answered by a
// real flow server on 127.0.0.1; POST /v1/calls/{id}/dtmf sends keys the simulated party
// hears (call.dtmf.sent). Both: 409 on a call not in progress, Idempotency-Key, scope
// calls:write. The simulator runs at a tenth of real time so a verb can be cut reliably.
// issue 12: live POST /v1/calls/{id}/flow interrupting a say, POST /v1/calls/{id}/dtmf; idempotency and scopes on both.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type CreatedAccount, type TestServer } from '../helpers/server.ts';
import type { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { startFlowServer, type FlowServer } from '../helpers/flow-server.ts';
import { MAGIC } from './voice-helpers.ts';
import { subscribeAll } from '../helpers/subscribe.ts';
import { allEventsOf, waitForFlow, waitForFlowEvent, waitForRunning } from './flow-helpers.ts';

let t: TestServer;
let acct: CreatedAccount;
let receiver: WebhookReceiver;
let app: FlowServer;
let from: string;
const api = () => t.as(acct.keys.sandbox);
const SCALE = 0.1;
// 30 words, ten times: about 104 simulated seconds, 10 real ones; every test cuts it.
const LONG = { say: { text: Array.from({ length: 30 }, (_, i) => `word${i}`).join(' '), loop: 10 } };

before(async () => {
  t = await startTestServer({ SWITCHBOARD_SIM_TIME_SCALE: String(SCALE) });
  acct = await t.createAccount('scale');
  from = acct.numbers.sandbox[0]!;
  receiver = await subscribeAll(t, acct.keys.sandbox);
  app = await startFlowServer();
  app.secrets.push((await api().get('/v1/webhooks/default_secret')).body.secret);
});
after(async () => {
  await app.close();
  await receiver.close();
  await t.close();
});

async function place(flow: unknown[]): Promise<string> {
  const res = await api().post('/v1/calls', { from, to: MAGIC.staysUp, flow });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.id;
}

describe('POST /v1/calls/{id}/flow', () => {
  test('interrupts a long say: its log entry says interrupted and the new flow runs from its first verb', async () => {
    const id = await place([LONG, { say: { text: 'never reached' } }]);
    await waitForRunning(api(), id, 0);
    const res = await api().post(`/v1/calls/${id}/flow`, { flow: [{ say: { text: 'You have been moved.' } }, { hangup: {} }] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.id, id);
    assert.equal(res.body.status, 'in_progress');
    await receiver.waitForEvent('call.completed', id);
    const flow = (await api().get(`/v1/calls/${id}/flow`)).body;
    assert.deepEqual(flow.flow, [{ say: { text: 'You have been moved.', loop: 1 } }, { hangup: {} }]);
    assert.deepEqual(flow.log.map((e: any) => [e.index, e.verb, e.result]), [
      [0, 'say', { reason: 'interrupted' }], [0, 'say', { reason: 'finished' }], [1, 'hangup', {}],
    ]);
    const cut = (Date.parse(flow.log[0].ended_at) - Date.parse(flow.log[0].started_at)) / 1000 / SCALE;
    assert.ok(cut < 10 * (30 / 3 + 0.4), `the say (${10 * (30 / 3 + 0.4)} simulated s) was cut after ${cut} s`);
  });

  test('interrupts a gather: call.gather.completed says interrupted with the digits so far, and no action_url is asked', async () => {
    const id = await place([{ gather: { num_digits: 4, timeout: 60, action_url: `${app.url}/never` } }]);
    await waitForRunning(api(), id, 0);
    assert.equal((await api().post(`/v1/sandbox/calls/${id}/press`, { digits: '12' })).status, 200);
    assert.equal((await api().post(`/v1/calls/${id}/flow`, { flow: [{ hangup: {} }] })).status, 200);
    const [event] = await waitForFlowEvent(receiver, id, 'call.gather.completed');
    assert.deepEqual(event!.data.object, { object: 'call_gather', call_id: id, index: 0, digits: '12', speech: null, confidence: null, reason: 'interrupted' });
    await receiver.waitForEvent('call.completed', id);
    assert.deepEqual(allEventsOf(receiver, id).map((e) => e.type), ['call.queued', 'call.ringing', 'call.answered', 'call.gather.completed', 'call.completed']);
    assert.equal(app.requests.filter((r) => r.path === '/never').length, 0);
  });

  test('{url}: the new flow is fetched (signed, reason update) and replaces the running one', async () => {
    app.routes.set('/moved', [{ pause: { seconds: 1 } }, { hangup: {} }]);
    const id = await place([LONG]);
    await waitForRunning(api(), id, 0);
    assert.equal((await api().post(`/v1/calls/${id}/flow`, { url: `${app.url}/moved` })).status, 200);
    const [req] = await app.waitForRequests('/moved');
    assert.equal(req!.verified, true, 'signed with the default secret');
    assert.equal(req!.body.object, 'flow_request');
    assert.equal(req!.body.reason, 'update');
    assert.equal(req!.body.call.id, id);
    await receiver.waitForEvent('call.completed', id);
    const flow = (await api().get(`/v1/calls/${id}/flow`)).body;
    assert.deepEqual(flow.log.map((e: any) => [e.verb, e.result]), [['say', { reason: 'interrupted' }], ['pause', { reason: 'finished' }], ['hangup', {}]]);
  });

  test('a call placed without a flow can be given one', async () => {
    const res = await api().post('/v1/calls', { from, to: MAGIC.staysUp });
    const id = res.body.id;
    await receiver.waitForEvent('call.answered', id);
    assert.equal((await api().post(`/v1/calls/${id}/flow`, { flow: [{ say: { text: 'Hello.' } }, { hangup: {} }] })).status, 200);
    await receiver.waitForEvent('call.completed', id);
    const flow = (await api().get(`/v1/calls/${id}/flow`)).body;
    assert.deepEqual(flow.log.map((e: any) => e.verb), ['say', 'hangup']);
  });

  test('bad bodies are 4xx naming the field; nothing changes', async () => {
    const id = await place([LONG]);
    await waitForRunning(api(), id, 0);
    const invalid = await api().post(`/v1/calls/${id}/flow`, { flow: [{ say: { text: 'ok' } }, { pause: { seconds: -1 } }] });
    assert.equal(invalid.status, 400);
    assert.deepEqual(invalid.body.errors.map((e: any) => e.field), ['flow[1].pause.seconds']);
    const both = await api().post(`/v1/calls/${id}/flow`, { flow: [{ hangup: {} }], url: `${app.url}/x` });
    assert.equal(both.status, 400);
    assert.equal(both.body.errors[0].field, 'url');
    const neither = await api().post(`/v1/calls/${id}/flow`, {});
    assert.equal(neither.status, 400);
    assert.equal(neither.body.errors[0].field, 'flow');
    const badUrl = await api().post(`/v1/calls/${id}/flow`, { url: 'not a url' });
    assert.equal(badUrl.status, 422, JSON.stringify(badUrl.body));
    assert.equal(badUrl.body.code, 'webhook_url_not_allowed', 'the same URL policy as answer_url');
    assert.equal(badUrl.body.errors[0].field, 'url');
    const flow = (await api().get(`/v1/calls/${id}/flow`)).body;
    assert.deepEqual(flow.log.map((e: any) => e.ended_at), [null], 'the say still runs');
    await api().post(`/v1/calls/${id}/hangup`);
  });

  test('409 call_not_in_progress on an ended call; 404 for another mode', async () => {
    const res = await api().post('/v1/calls', { from, to: MAGIC.busy });
    await receiver.waitForEvent('call.completed', res.body.id);
    const late = await api().post(`/v1/calls/${res.body.id}/flow`, { flow: [{ hangup: {} }] });
    assert.equal(late.status, 409);
    assert.equal(late.body.code, 'call_not_in_progress');
    assert.equal((await t.as(acct.keys.live).post(`/v1/calls/${res.body.id}/flow`, { flow: [{ hangup: {} }] })).status, 404);
  });

  test('Idempotency-Key: a retry replays the answer and does not replace the flow twice', async () => {
    const id = await place([LONG]);
    await waitForRunning(api(), id, 0);
    const body = { flow: [{ pause: { seconds: 600 } }] };
    const first = await api().post(`/v1/calls/${id}/flow`, body, { idempotencyKey: `flow-${id}` });
    assert.equal(first.status, 200);
    await waitForRunning(api(), id, 0).then(() => waitForFlow(api(), id, (f) => f.log.length === 2));
    const again = await api().post(`/v1/calls/${id}/flow`, body, { idempotencyKey: `flow-${id}` });
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(again.body, first.body);
    const flow = (await api().get(`/v1/calls/${id}/flow`)).body;
    assert.deepEqual(flow.log.map((e: any) => [e.verb, e.result]), [['say', { reason: 'interrupted' }], ['pause', null]], 'the pause was not cut by a second update');
    await api().post(`/v1/calls/${id}/hangup`);
  });

  test('needs calls:write', async () => {
    const id = await place([LONG]);
    const readOnly = (await api().post('/v1/keys', { name: 'ro', scopes: ['calls:read'] })).body.secret;
    const res = await t.as(readOnly).post(`/v1/calls/${id}/flow`, { flow: [{ hangup: {} }] });
    assert.equal(res.status, 403);
    const dtmf = await t.as(readOnly).post(`/v1/calls/${id}/dtmf`, { digits: '1' });
    assert.equal(dtmf.status, 403);
    await api().post(`/v1/calls/${id}/hangup`);
  });
});

describe('POST /v1/calls/{id}/dtmf', () => {
  test('the simulated party hears the keys: call.dtmf.sent on the call, once per request even when retried', async () => {
    const id = await place([{ pause: { seconds: 600 } }]);
    await waitForRunning(api(), id, 0);
    const res = await api().post(`/v1/calls/${id}/dtmf`, { digits: '12w#' }, { idempotencyKey: `dtmf-${id}` });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.id, id);
    const retry = await api().post(`/v1/calls/${id}/dtmf`, { digits: '12w#' }, { idempotencyKey: `dtmf-${id}` });
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    const [event] = await waitForFlowEvent(receiver, id, 'call.dtmf.sent');
    assert.equal(event!.data.object.object, 'call_dtmf');
    assert.equal(event!.data.object.digits, '12w#');
    assert.ok(event!.data.object.at_seconds >= 0);
    await api().post(`/v1/calls/${id}/hangup`);
    await receiver.waitForEvent('call.completed', id);
    assert.equal(allEventsOf(receiver, id).filter((e) => e.type === 'call.dtmf.sent').length, 1);
    const flow = (await api().get(`/v1/calls/${id}/flow`)).body;
    assert.deepEqual(flow.log.map((e: any) => e.result), [{ reason: 'hangup' }], 'keys we send are not input to our own flow');
  });

  test('bad digits are 400; a call not in progress is 409', async () => {
    const id = await place([{ pause: { seconds: 600 } }]);
    await waitForRunning(api(), id, 0);
    const bad = await api().post(`/v1/calls/${id}/dtmf`, { digits: '12x' });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.errors[0].field, 'digits');
    await api().post(`/v1/calls/${id}/hangup`);
    const late = await api().post(`/v1/calls/${id}/dtmf`, { digits: '1' });
    assert.equal(late.status, 409);
    assert.equal(late.body.code, 'call_not_in_progress');
  });
});
