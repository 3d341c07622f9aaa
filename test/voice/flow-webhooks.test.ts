// Flows fetched from the customer's server through HTTP: answer_url on POST /v1/calls, a
// gather's action_url answered with the next flow, redirect, and every failure path
// (timeout, 500, not JSON, an invalid flow with its JSON path, an empty flow, a redirect
// loop) ending in the fallback URL or in the apology and hang-up, each with call.flow.failed.
// The flow webhooks and the event webhooks both reach real servers on 127.0.0.1.
// issue 12: answer_url, action_url, redirect; every failure path (timeout, 500, invalid JSON, invalid flow, empty flow, redirect loop) ends in fallback or apology with call.flow.failed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type CreatedAccount, type TestServer } from '../helpers/server.ts';
import type { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { startFlowServer, type FlowServer } from '../helpers/flow-server.ts';
import { MAGIC } from './voice-helpers.ts';
import { subscribeAll } from '../helpers/subscribe.ts';
import { allEventsOf, waitForFlowEvent, waitForRunning } from './flow-helpers.ts';

let t: TestServer;
let acct: CreatedAccount;
let receiver: WebhookReceiver;
let app: FlowServer;
let from: string;
const api = () => t.as(acct.keys.sandbox);
const APOLOGY = 'We are sorry, an application error has occurred. Goodbye.';

before(async () => {
  t = await startTestServer({ SWITCHBOARD_SIM_TIME_SCALE: '0.1', SWITCHBOARD_FLOW_WEBHOOK_TIMEOUT_MS: '400' });
  acct = await t.createAccount('scale');
  from = acct.numbers.sandbox[0]!;
  receiver = await subscribeAll(t, acct.keys.sandbox);
  app = await startFlowServer();
  app.secrets.push(receiver.secrets[0]!); // the account's default secret signs flow webhooks
});
after(async () => {
  await app.close();
  await receiver.close();
  await t.close();
});

async function place(body: Record<string, unknown>): Promise<string> {
  const res = await api().post('/v1/calls', { from, to: MAGIC.staysUp, ...body });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.id;
}

async function completedFlow(id: string): Promise<any> {
  await receiver.waitForEvent('call.completed', id, 20_000);
  return (await api().get(`/v1/calls/${id}/flow`)).body;
}

describe('answer_url and action_url', () => {
  test('the answer webhook gets the signed call, its flow gathers, the action_url gets the digits and answers the next flow', async () => {
    app.routes.set('/ivr/answer', [{ gather: { num_digits: 1, timeout: 30, action_url: `${app.url}/ivr/menu`, prompts: [{ say: { text: 'Press 1 for sales.' } }] } }]);
    app.routes.set('/ivr/menu', (req) => (req.body.gather.digits === '1' ? [{ say: { text: 'Connecting you to sales.' } }, { hangup: {} }] : [{ hangup: {} }]));
    const id = await place({ answer_url: `${app.url}/ivr/answer` });
    const [answer] = await app.waitForRequests('/ivr/answer');
    assert.ok(answer!.verified, 'signed with the account default secret');
    assert.equal(answer!.body.object, 'flow_request');
    assert.equal(answer!.body.reason, 'answer');
    assert.equal(answer!.body.call.id, id);
    assert.equal(answer!.body.call.status, 'in_progress');
    assert.equal(answer!.body.gather, null);
    assert.ok(answer!.headers['webhook-id']);
    await waitForRunning(api(), id, 0);
    assert.equal((await api().post(`/v1/sandbox/calls/${id}/press`, { digits: '1' })).status, 200);
    const [menu] = await app.waitForRequests('/ivr/menu');
    assert.ok(menu!.verified);
    assert.equal(menu!.body.reason, 'gather');
    assert.deepEqual(menu!.body.gather, { object: 'call_gather', call_id: id, index: 0, digits: '1', speech: null, confidence: null, reason: 'num_digits' });
    const flow = await completedFlow(id);
    assert.deepEqual(flow.flow, [{ say: { text: 'Connecting you to sales.', loop: 1 } }, { hangup: {} }], 'the flow is now the one action_url answered');
    assert.deepEqual(flow.log.map((e: any) => [e.index, e.verb, e.result?.reason ?? null]), [[0, 'gather', 'num_digits'], [0, 'say', 'finished'], [1, 'hangup', null]]);
    assert.deepEqual(allEventsOf(receiver, id).map((e) => e.type), ['call.queued', 'call.ringing', 'call.answered', 'call.gather.completed', 'call.completed']);
  });

  test('redirect continues with the flow another URL answers, and the log says where it went', async () => {
    app.routes.set('/redirect/next', [{ say: { text: 'Redirected.' } }]);
    const id = await place({ flow: [{ redirect: { url: `${app.url}/redirect/next` } }] });
    const flow = await completedFlow(id);
    assert.deepEqual(flow.log.map((e: any) => e.verb), ['redirect', 'say']);
    assert.deepEqual(flow.log[0].result, { url: `${app.url}/redirect/next`, status_code: 200, ok: true });
    assert.equal((await app.waitForRequests('/redirect/next'))[0]!.body.reason, 'redirect');
  });

  test('answer_url is refused with flow, and answer_fallback_url needs something to fall back from', async () => {
    const both = await api().post('/v1/calls', { from, to: MAGIC.staysUp, flow: [{ hangup: {} }], answer_url: `${app.url}/x` });
    assert.equal(both.status, 400);
    assert.equal(both.body.errors[0].field, 'answer_url');
    const alone = await api().post('/v1/calls', { from, to: MAGIC.staysUp, answer_fallback_url: `${app.url}/x` });
    assert.equal(alone.status, 400);
    assert.equal(alone.body.errors[0].field, 'answer_fallback_url');
    const bad = await api().post('/v1/calls', { from, to: MAGIC.staysUp, answer_url: 'ftp://example.com/flow' });
    assert.equal(bad.status, 422, JSON.stringify(bad.body));
    assert.equal(bad.body.code, 'webhook_url_not_allowed');
    assert.equal(bad.body.errors[0].field, 'answer_url');
  });
});

describe('a failing flow webhook is never silence', () => {
  const cases: Array<{ name: string; answer: unknown; cause: string; field?: string; status?: number | null }> = [
    { name: 'a timeout', answer: { delayMs: 1500, json: [{ hangup: {} }] }, cause: 'timeout', status: null },
    { name: 'a 500', answer: { status: 500, raw: 'oops' }, cause: 'http_status', status: 500 },
    { name: 'a body that is not JSON', answer: { raw: '<Response><Say>hi</Say></Response>' }, cause: 'invalid_json', status: 200 },
    { name: 'an invalid flow', answer: [{ say: { text: 'ok' } }, { gather: { num_digits: 0 } }], cause: 'invalid_flow', field: 'flow[1].gather.num_digits', status: 200 },
    { name: 'an empty flow', answer: [], cause: 'empty_flow', field: 'flow', status: 200 },
  ];
  for (const c of cases) {
    test(`${c.name}: call.flow.failed names it, the caller hears the apology, the call hangs up`, async () => {
      const path = `/fail/${c.cause}`;
      app.routes.set(path, c.answer as any);
      const id = await place({ answer_url: `${app.url}${path}` });
      const [failed] = await waitForFlowEvent(receiver, id, 'call.flow.failed');
      const o = failed!.data.object;
      assert.equal(o.object, 'call_flow_failure');
      assert.equal(o.cause, c.cause, o.detail);
      assert.equal(o.url, `${app.url}${path}`);
      assert.equal(o.next, 'apology');
      assert.equal(o.status_code, c.status ?? null);
      assert.equal(o.field, c.field ?? null);
      assert.ok(o.detail.length > 10);
      const flow = await completedFlow(id);
      assert.deepEqual(flow.log.map((e: any) => [e.verb, e.result?.reason ?? null]), [['say', 'finished'], ['hangup', null]]);
      assert.equal(flow.flow[0].say.text, APOLOGY);
      const call = (await api().get(`/v1/calls/${id}`)).body;
      assert.equal(call.status, 'completed');
      assert.equal(call.hangup_source, 'caller');
      // issue 12: a flow that ends the call never reads as an API hangup.
      assert.match(call.hangup_reason, /flow failed \(see call\.flow\.failed/);
    });
  }

  test('a redirect loop stops after the hop limit', async () => {
    app.routes.set('/loop', () => [{ redirect: { url: `${app.url}/loop` } }]);
    const id = await place({ answer_url: `${app.url}/loop` });
    const [failed] = await waitForFlowEvent(receiver, id, 'call.flow.failed');
    assert.equal(failed!.data.object.cause, 'redirect_loop');
    assert.equal((await app.waitForRequests('/loop')).length, 10, 'ten answers, no eleventh request');
    const flow = await completedFlow(id);
    assert.equal(flow.flow[0].say.text, APOLOGY);
    assert.equal(app.requests.filter((r) => r.path === '/loop').length, 10);
  });

  test('the fallback URL is asked once after a failure; its flow runs', async () => {
    app.routes.set('/primary', { status: 503, raw: 'down' });
    app.routes.set('/fallback', [{ say: { text: 'Our menu is down; please call later.' } }, { hangup: {} }]);
    const id = await place({ answer_url: `${app.url}/primary`, answer_fallback_url: `${app.url}/fallback` });
    const [failed] = await waitForFlowEvent(receiver, id, 'call.flow.failed');
    assert.deepEqual([failed!.data.object.cause, failed!.data.object.status_code, failed!.data.object.next], ['http_status', 503, 'fallback']);
    const flow = await completedFlow(id);
    assert.equal(flow.flow[0].say.text, 'Our menu is down; please call later.');
    const [fb] = await app.waitForRequests('/fallback');
    assert.equal(fb!.body.reason, 'answer');
    assert.ok(fb!.verified);
  });

  test('a failing fallback ends in the apology too, with an event for each failure', async () => {
    app.routes.set('/primary2', { raw: 'not json' });
    app.routes.set('/fallback2', { status: 404, raw: 'gone' });
    const id = await place({ answer_url: `${app.url}/primary2`, answer_fallback_url: `${app.url}/fallback2` });
    const events = await waitForFlowEvent(receiver, id, 'call.flow.failed', 2);
    assert.deepEqual(events.map((e) => [e.data.object.cause, e.data.object.next]), [['invalid_json', 'fallback'], ['http_status', 'apology']]);
    const flow = await completedFlow(id);
    assert.equal(flow.flow[0].say.text, APOLOGY);
  });
});
