// The agent verb through HTTP on the sandbox: a flow greets the caller, then hands the call to
// an AI agent; the agent's conversation (ai.conversation.* on a real receiver) hears the
// caller's remaining script lines, answers from its knowledge and ends the call; the rest of
// the flow does not run. An unknown agent is a failed verb and the flow goes on.
// issue 12: the agent verb.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type CreatedAccount, type TestServer } from '../helpers/server.ts';
import type { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { createFixtureAgent, fixture } from '../helpers/ai.ts';
import { subscribeAll } from '../helpers/subscribe.ts';
import { allEventsOf } from './flow-helpers.ts';

let t: TestServer;
let acct: CreatedAccount;
let receiver: WebhookReceiver;
let number: { id: string; phone_number: string };
let agentId: string;
const api = () => t.as(acct.keys.sandbox);

before(async () => {
  t = await startTestServer();
  acct = await t.createAccount('scale');
  receiver = await subscribeAll(t, acct.keys.sandbox);
  number = (await api().get('/v1/numbers?limit=1')).body.data[0];
  agentId = (await createFixtureAgent(t, acct.keys.sandbox, null)).agent.id;
});
after(async () => {
  await receiver.close();
  await t.close();
});

async function callIn(flow: unknown[], script: unknown[]): Promise<string> {
  assert.equal((await api().patch(`/v1/numbers/${number.id}`, { voice_flow: flow })).status, 200);
  const res = await api().post('/v1/sandbox/inbound_calls', { from: '+14155550123', to: number.phone_number, caller_script: script });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.id;
}

describe('agent', () => {
  test('the flow hands the call to the agent: it greets, hears the caller\'s lines, answers and ends the call', async () => {
    const id = await callIn([{ say: { text: 'Welcome to the clinic.' } }, { agent: { agent_id: agentId } }, { say: { text: 'never said' } }],
      [{ say: 'Hi, what are your hours on Wednesday?' }, { say: 'Great, thanks. Bye!' }]);
    await receiver.waitForEvent('call.completed', id);
    const completed = (await receiver.waitFor((evs) => evs.some((e) => e.type === 'ai.conversation.completed' && e.data.object.call_id === id)))
      .find((e) => e.type === 'ai.conversation.completed' && e.data.object.call_id === id)!.data.object;
    assert.equal(completed.agent_id, agentId);
    assert.equal(completed.outcome, 'resolved');
    const turns = completed.transcript;
    assert.equal(turns[0].text, fixture.agent.greeting);
    assert.deepEqual(turns.filter((x: any) => x.speaker === 'caller').map((x: any) => x.text), ['Hi, what are your hours on Wednesday?', 'Great, thanks. Bye!']);
    assert.match(turns[2].text, /10:00 a\.m\. to 7:00 p\.m\./);
    const log = (await api().get(`/v1/calls/${id}/flow`)).body.log;
    assert.deepEqual(log.map((e: any) => [e.verb, e.result]), [['say', { reason: 'finished' }], ['agent', { agent_id: agentId, conversation_id: completed.id }]]);
    assert.deepEqual(allEventsOf(receiver, id).map((e) => e.type).filter((type) => type.startsWith('call.')),
      ['call.inbound', 'call.ringing', 'call.answered', 'call.completed'], 'the call is answered once, by the flow');
  });

  test('an unknown agent is a failed verb: the flow goes on', async () => {
    const id = await callIn([{ agent: { agent_id: 'agent_0000000000000000000000000' } }, { say: { text: 'Sorry, nobody can take your call.' } }], []);
    await receiver.waitForEvent('call.completed', id);
    const log = (await api().get(`/v1/calls/${id}/flow`)).body.log;
    assert.deepEqual(log.map((e: any) => [e.verb, e.result.reason]), [['agent', 'failed'], ['say', 'finished']]);
    assert.match(log[0].result.detail, /there is no agent/);
  });

  test('an agent_id that is not one is a 400 naming the path', async () => {
    const res = await api().patch(`/v1/numbers/${number.id}`, { voice_flow: [{ agent: { agent_id: 'bob' } }] });
    assert.equal(res.status, 400);
    assert.equal(res.body.errors[0].field, 'voice_flow[0].agent.agent_id');
  });
});
