// The IVR of issue 12, end to end through HTTP on a real flow server and a real webhook
// receiver: an inbound sandbox call reaches a number whose voice_url answers a menu; the
// scripted caller presses a key; the gather's action_url answers a dial to sales or support;
// the dialled number answers (or is busy, and the flow says so); the call completes. Every
// request our server got is signed, every event is on the call's own sequence.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type CreatedAccount, type TestServer } from '../helpers/server.ts';
import type { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { startFlowServer, type FlowServer } from '../helpers/flow-server.ts';
import { MAGIC, ORDINARY } from './voice-helpers.ts';
import { subscribeAll } from '../helpers/subscribe.ts';
import { allEventsOf } from './flow-helpers.ts';

let t: TestServer;
let acct: CreatedAccount;
let receiver: WebhookReceiver;
let app: FlowServer;
let number: { id: string; phone_number: string };
const api = () => t.as(acct.keys.sandbox);
const CALLER = '+14155550123';
const SALES = ORDINARY; // answers, talks 5 s, hangs up
const SUPPORT = MAGIC.busy;

before(async () => {
  t = await startTestServer({ SWITCHBOARD_SIM_TIME_SCALE: '0.05' });
  acct = await t.createAccount('scale');
  receiver = await subscribeAll(t, acct.keys.sandbox);
  app = await startFlowServer();
  app.secrets.push(receiver.secrets[0]!);
  // The customer's voice application: a menu, then a dial by the key pressed.
  app.routes.set('/ivr/answer', [
    { say: { text: 'Thanks for calling Acme.' } },
    { gather: { num_digits: 1, timeout: 10, action_url: `${app.url}/ivr/menu`, prompts: [{ say: { text: 'Press 1 for sales, 2 for support.' } }] } },
    { say: { text: 'We did not get your choice. Goodbye.' } },
  ]);
  app.routes.set('/ivr/menu', (req) => [
    { say: { text: req.body.gather.digits === '1' ? 'Connecting you to sales.' : 'Connecting you to support.' } },
    { dial: { to: req.body.gather.digits === '1' ? SALES : SUPPORT, timeout: 20, action_url: `${app.url}/ivr/after-dial` } },
  ]);
  app.routes.set('/ivr/after-dial', (req) => (req.body.dial.outcome === 'completed'
    ? [{ hangup: {} }]
    : [{ say: { text: 'Everyone is busy. Please call again later.' } }, { hangup: {} }]));
  const mine = (await api().get('/v1/numbers?limit=1')).body.data[0];
  number = mine;
  const patched = await api().patch(`/v1/numbers/${number.id}`, { voice_url: `${app.url}/ivr/answer` });
  assert.equal(patched.status, 200, JSON.stringify(patched.body));
});
after(async () => {
  await app.close();
  await receiver.close();
  await t.close();
});

async function callIn(key: string): Promise<string> {
  const res = await api().post('/v1/sandbox/inbound_calls', { from: CALLER, to: number.phone_number, caller_script: [{ press: key }] });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.id;
}

const requestsOf = (id: string, path: string) => app.requests.filter((r) => r.path === path && r.body.call.id === id);

describe('an IVR: answer webhook, gather, action_url, dial, bridge, completed', () => {
  test('press 1: sales answers, the two talk, the flow hangs up after the bridge', async () => {
    const id = await callIn('1');
    await receiver.waitForEvent('call.completed', id, 30_000);
    const [answer] = requestsOf(id, '/ivr/answer');
    const [menu] = requestsOf(id, '/ivr/menu');
    const [afterDial] = requestsOf(id, '/ivr/after-dial');
    for (const r of [answer, menu, afterDial]) assert.equal(r?.verified, true, 'every flow webhook is signed');
    assert.equal(answer!.body.reason, 'answer');
    assert.deepEqual([menu!.body.reason, menu!.body.gather.digits, menu!.body.gather.reason], ['gather', '1', 'num_digits']);
    assert.deepEqual([afterDial!.body.reason, afterDial!.body.dial.to, afterDial!.body.dial.outcome, afterDial!.body.dial.talk_seconds], ['dial', SALES, 'completed', 5]);

    const events = allEventsOf(receiver, id);
    assert.deepEqual(events.map((e) => e.type), ['call.inbound', 'call.ringing', 'call.answered', 'call.gather.completed', 'call.dial.completed', 'call.completed']);
    assert.deepEqual(events.map((e) => e.sequence), [1, 2, 3, 4, 5, 6]);
    const call = (await api().get(`/v1/calls/${id}`)).body;
    assert.deepEqual([call.status, call.direction, call.hangup_source], ['completed', 'inbound', 'callee'], 'our side (the callee of an inbound call) hung up');
    const flow = (await api().get(`/v1/calls/${id}/flow`)).body;
    assert.deepEqual(flow.log.map((e: any) => e.verb), ['say', 'gather', 'say', 'dial', 'hangup']);
    assert.deepEqual(flow.log[3].result, { to: SALES, outcome: 'completed', talk_seconds: 5 });
  });

  test('press 2: support is busy; the outcome goes to the action_url and the caller hears why', async () => {
    const id = await callIn('2');
    await receiver.waitForEvent('call.completed', id, 30_000);
    const [afterDial] = requestsOf(id, '/ivr/after-dial');
    assert.deepEqual([afterDial!.body.dial.to, afterDial!.body.dial.outcome], [SUPPORT, 'busy']);
    const flow = (await api().get(`/v1/calls/${id}/flow`)).body;
    assert.deepEqual(flow.log.map((e: any) => [e.verb, e.result.reason ?? e.result.outcome ?? null]), [
      ['say', 'finished'], ['gather', 'num_digits'], ['say', 'finished'], ['dial', 'busy'], ['say', 'finished'], ['hangup', null],
    ]);
    assert.equal((await api().get(`/v1/calls/${id}`)).body.status, 'completed', 'busy is an outcome, not a dropped call');
  });
});
