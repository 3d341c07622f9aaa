// Inbound calls answered by a number's voice configuration, through HTTP: voice_url (the
// answer webhook on a real server, an IVR menu with a gather and its action_url), voice_flow
// (speech from a caller script), and a number with nothing configured (a spoken message, a
// hang-up and call.flow.failed). The caller is a sandbox script of press/say/wait/hangup steps.
// issue 12: inbound calls by voice_url, voice_flow and nothing configured (spoken message, call.flow.failed); caller_script; voice configuration checks.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type CreatedAccount, type TestServer } from '../helpers/server.ts';
import type { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { startFlowServer, type FlowServer } from '../helpers/flow-server.ts';
import { subscribeAll } from '../helpers/subscribe.ts';
import { allEventsOf, waitForFlowEvent } from './flow-helpers.ts';

let t: TestServer;
let acct: CreatedAccount;
let receiver: WebhookReceiver;
let app: FlowServer;
const api = () => t.as(acct.keys.sandbox);
const CALLER = '+14155550199';

before(async () => {
  t = await startTestServer({ SWITCHBOARD_SIM_TIME_SCALE: '0.05' });
  acct = await t.createAccount('scale');
  receiver = await subscribeAll(t, acct.keys.sandbox);
  app = await startFlowServer();
  app.secrets.push(receiver.secrets[0]!);
});
after(async () => {
  await app.close();
  await receiver.close();
  await t.close();
});

/** A fresh sandbox voice number of the account. */
async function newNumber(): Promise<{ id: string; phone_number: string }> {
  const available = await api().get('/v1/numbers/available?limit=50');
  const taken = new Set(((await api().get('/v1/numbers?limit=100')).body.data as any[]).map((n) => n.phone_number));
  const pick = (available.body.data as any[]).find((n) => !taken.has(n.phone_number) && n.capabilities.includes('voice'));
  const res = await api().post('/v1/numbers', { phone_number: pick.phone_number });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

async function ended(id: string) {
  await receiver.waitForEvent('call.completed', id, 20_000);
  return { call: (await api().get(`/v1/calls/${id}`)).body, flow: (await api().get(`/v1/calls/${id}/flow`)).body };
}

describe('inbound calls answered by a flow', () => {
  test('voice_url: an IVR menu; the scripted caller presses 2, the action_url answers, the caller hangs up', async () => {
    const number = await newNumber();
    app.routes.set('/in/answer', [{ gather: { num_digits: 1, timeout: 10, action_url: `${app.url}/in/menu`, prompts: [{ say: { text: 'Press 1 for sales, 2 for support.' } }] } }]);
    app.routes.set('/in/menu', (req) => [{ say: { text: req.body.gather.digits === '2' ? 'Support here.' : 'Sales here.' } }, { pause: { seconds: 60 } }]);
    const patched = await api().patch(`/v1/numbers/${number.id}`, { voice_url: `${app.url}/in/answer` });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal(patched.body.voice_url, `${app.url}/in/answer`);
    const res = await api().post('/v1/sandbox/inbound_calls', { from: CALLER, to: number.phone_number, caller_script: [{ press: '2' }, { wait: 20 }, { hangup: true }] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.object, 'call');
    assert.equal(res.body.direction, 'inbound');
    assert.equal(res.body.status, 'ringing');
    const id = res.body.id;
    const [answer] = await app.waitForRequests('/in/answer');
    assert.ok(answer!.verified);
    assert.deepEqual([answer!.body.reason, answer!.body.call.id, answer!.body.call.from, answer!.body.call.to], ['answer', id, CALLER, number.phone_number]);
    const { call, flow } = await ended(id);
    assert.equal((await app.waitForRequests('/in/menu'))[0]!.body.gather.digits, '2');
    assert.equal(call.hangup_source, 'caller', 'the scripted caller hung up');
    assert.deepEqual(flow.flow[0], { say: { text: 'Support here.', loop: 1 } });
    assert.deepEqual(flow.log.map((e: any) => [e.verb, e.result?.reason]), [['gather', 'num_digits'], ['say', 'finished'], ['pause', 'hangup']]);
    assert.deepEqual(allEventsOf(receiver, id).map((e) => e.type), ['call.inbound', 'call.ringing', 'call.answered', 'call.gather.completed', 'call.completed']);
  });

  test('voice_flow: a stored flow; the scripted caller speaks and the gather hears the exact words', async () => {
    const number = await newNumber();
    const patched = await api().patch(`/v1/numbers/${number.id}`, {
      voice_flow: [{ gather: { input: ['speech'], timeout: 10, prompts: [{ say: { text: 'How can I help?' } }] } }, { say: { text: 'Thank you.' } }],
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal(patched.body.voice_flow[0].gather.speech_timeout, 2, 'stored with defaults filled in');
    const res = await api().post('/v1/sandbox/inbound_calls', { from: CALLER, to: number.phone_number, caller_script: ['billing please'] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const [gathered] = await waitForFlowEvent(receiver, res.body.id, 'call.gather.completed');
    assert.deepEqual([gathered!.data.object.speech, gathered!.data.object.reason], ['billing please', 'speech']);
    const { call, flow } = await ended(res.body.id);
    assert.equal(call.hangup_source, 'callee', 'the flow ran out and our side hung up');
    assert.deepEqual(flow.log.map((e: any) => e.verb), ['gather', 'say']);
  });

  test('nothing configured: the caller hears that the number is not set up, the call hangs up, call.flow.failed says why', async () => {
    const number = await newNumber();
    const res = await api().post('/v1/sandbox/inbound_calls', { from: CALLER, to: number.phone_number, caller_script: [] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const id = res.body.id;
    const [failed] = await waitForFlowEvent(receiver, id, 'call.flow.failed');
    assert.equal(failed!.data.object.cause, 'no_voice_config');
    assert.equal(failed!.data.object.url, null);
    assert.match(failed!.data.object.detail, new RegExp(number.id));
    const { call, flow } = await ended(id);
    assert.equal(call.status, 'completed');
    assert.equal(flow.flow[0].say.text, 'The number you have called is not set up to take calls. Goodbye.');
    assert.deepEqual(flow.log.map((e: any) => e.verb), ['say', 'hangup']);
  });

  test('voice configuration is checked: the flow with its JSON paths, one handler at a time, the fallback needs a primary', async () => {
    const number = await newNumber();
    const bad = await api().patch(`/v1/numbers/${number.id}`, { voice_flow: [{ say: {} }, { gather: { timeout: 0 } }] });
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body.errors.map((e: any) => e.field), ['voice_flow[0].say.text', 'voice_flow[1].gather.timeout']);
    const both = await api().patch(`/v1/numbers/${number.id}`, { voice_url: `${app.url}/x`, voice_flow: [{ hangup: {} }] });
    assert.equal(both.status, 400);
    assert.equal(both.body.errors[0].field, 'voice_flow');
    const fallbackOnly = await api().patch(`/v1/numbers/${number.id}`, { voice_fallback_url: `${app.url}/x` });
    assert.equal(fallbackOnly.status, 400);
    assert.equal(fallbackOnly.body.errors[0].field, 'voice_fallback_url');
    const ok = await api().patch(`/v1/numbers/${number.id}`, { voice_url: `${app.url}/x`, voice_fallback_url: `${app.url}/y` });
    assert.equal(ok.status, 200);
    const switched = await api().patch(`/v1/numbers/${number.id}`, { voice_url: null, voice_flow: [{ hangup: {} }] });
    assert.equal(switched.status, 200, JSON.stringify(switched.body));
    assert.deepEqual([switched.body.voice_url, switched.body.voice_flow], [null, [{ hangup: {} }]]);
  });
});
