// Whole sandbox conversations through HTTP: a caller dials the agent's number with
// POST /v1/sandbox/inbound_calls and every outcome is checked in the transcript, on the
// call, and in the signed webhooks (verified with `standardwebhooks` on 127.0.0.1).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type CreatedAccount, type TestServer } from '../helpers/server.ts';
import { subscribeAll } from '../helpers/subscribe.ts';
import type { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { ALWAYS_CLOSED, converse, createFixtureAgent, fixture } from '../helpers/ai.ts';

let t: TestServer;
let acct: CreatedAccount;
let hooks: WebhookReceiver;
let numberId: string;
let agentId: string;
let docIds: Record<string, string>;

before(async () => {
  t = await startTestServer();
  acct = await t.createAccount('scale');
  hooks = await subscribeAll(t, acct.keys.sandbox);
  numberId = (await t.as(acct.keys.sandbox).get('/v1/numbers')).body.data[0].id;
  ({ agent: { id: agentId }, docIds } = await createFixtureAgent(t, acct.keys.sandbox, numberId));
});
after(async () => {
  await hooks.close();
  await t.close();
});

const agentTurns = (conv: any) => conv.transcript.filter((turn: any) => turn.speaker === 'agent');

describe('sandbox conversations', () => {
  test('answers from knowledge with citations, resolves, is scored and fires ai.conversation.scored', async () => {
    const to = acct.numbers.sandbox[0]!;
    const { started, scored, event } = await converse(t, acct.keys.sandbox, hooks, {
      to, caller_script: ['Hi, what are your hours on Wednesday?', "How much is a cleaning if I don't have insurance?", 'Great, thanks. Bye!'],
    });
    assert.match(started.id, /^conv_/);
    assert.equal(started.status, 'in_progress');
    assert.equal(started.agent_id, agentId);
    assert.match(started.call_id, /^call_/);

    assert.equal(event.type, 'ai.conversation.scored');
    assert.equal(scored.status, 'completed');
    assert.equal(scored.outcome, 'resolved');
    assert.equal(scored.engine, 'default');
    assert.deepEqual(scored.fallbacks, []);
    const turns = scored.transcript;
    assert.deepEqual(turns.map((x: any) => [x.speaker, x.action]), [
      ['agent', 'greet'], ['caller', null], ['agent', 'answer'], ['caller', null], ['agent', 'answer'], ['caller', null], ['agent', 'end'],
    ]);
    assert.equal(turns[0].text, fixture.agent.greeting);
    assert.match(turns[2].text, /10:00 a\.m\. to 7:00 p\.m\./);
    assert.deepEqual(turns[2].citations, [docIds.hours]);
    assert.match(turns[4].text, /\$125/);
    assert.ok(turns[4].citations.includes(docIds.services), `cites the price list: ${JSON.stringify(turns[4].citations)}`);
    for (let i = 1; i < turns.length; i++) assert.ok(turns[i].at > turns[i - 1].at, 'turn offsets increase');
    assert.ok(scored.duration_seconds >= Math.floor(turns.at(-1).at));

    assert.ok(Number.isInteger(scored.score.overall) && scored.score.overall >= 70, `a quick resolved call scores high: ${scored.score.overall}`);
    for (const part of ['answered_from_knowledge', 'resolution', 'caller_sentiment', 'turns_to_resolution']) {
      assert.ok(scored.score.parts[part].explanation.length > 0, `${part} is explained`);
    }
    assert.ok(scored.scored_at);

    const fetched = await t.as(acct.keys.sandbox).get(`/v1/ai/conversations/${started.id}`);
    assert.equal(fetched.status, 200);
    assert.deepEqual(fetched.body, scored);

    // The conversation was held on a real inbound call, answered and hung up by the agent.
    const call = (await t.as(acct.keys.sandbox).get(`/v1/calls/${started.call_id}`)).body;
    assert.equal(call.direction, 'inbound');
    assert.equal(call.from, '+14155550199');
    assert.equal(call.to, to);
    assert.equal(call.status, 'completed');
    assert.equal(call.hangup_source, 'callee');
    const types = hooks.events().filter((e) => [started.id, started.call_id].includes(e.data.object.id)).map((e) => e.type);
    for (const type of ['call.ringing', 'call.answered', 'call.completed', 'ai.conversation.started', 'ai.conversation.completed', 'ai.conversation.scored']) {
      assert.ok(types.includes(type), `${type} was delivered (got ${types.join(', ')})`);
    }
  });

  test('a caller asking for a person is transferred through the voice layer', async () => {
    const { started, scored } = await converse(t, acct.keys.sandbox, hooks, {
      to: acct.numbers.sandbox[0]!, caller_script: ['Can I speak to a real person please?', 'this line is never reached'],
    });
    assert.equal(scored.outcome, 'transferred');
    const last = agentTurns(scored).at(-1);
    assert.equal(last.action, 'transfer');
    assert.equal(scored.transcript.filter((x: any) => x.speaker === 'caller').length, 1);
    const transferred = await hooks.waitForEvent('call.transferred', started.call_id);
    assert.deepEqual(transferred.data.object.transfers.map((x: any) => [x.to, x.status]), [[fixture.agent.transferNumber, 'completed']]);
    assert.ok(scored.score.overall >= 0 && scored.score.overall <= 100);
  });

  test('a failed transfer (busy) becomes message taking, and the message is stored', async () => {
    const api = t.as(acct.keys.sandbox);
    await api.patch(`/v1/ai/agents/${agentId}`, { transfer_number: '+15005550001' });
    try {
      const { started, scored } = await converse(t, acct.keys.sandbox, hooks, {
        to: acct.numbers.sandbox[0]!, caller_script: ['Representative!', 'Please have the office manager call me back about my bill.'],
      });
      const failed = await hooks.waitForEvent('call.transfer_failed', started.call_id);
      assert.equal(failed.data.object.transfers[0].status, 'busy');
      assert.equal(scored.outcome, 'message_taken');
      assert.equal(scored.message, 'Please have the office manager call me back about my bill.');
      assert.deepEqual(agentTurns(scored).map((x: any) => x.action), ['greet', 'transfer', 'clarify', 'message']);
      assert.match(agentTurns(scored)[2].text, /what message should I pass on\?$/);
    } finally {
      await api.patch(`/v1/ai/agents/${agentId}`, { transfer_number: fixture.agent.transferNumber });
    }
  });

  test('a caller can leave a message', async () => {
    const { scored } = await converse(t, acct.keys.sandbox, hooks, {
      to: acct.numbers.sandbox[0]!, caller_script: ["I'd like to leave a message please.", 'This is Dana, please call me back about moving my appointment.', "No, that's all. Bye."],
    });
    assert.equal(scored.outcome, 'message_taken');
    assert.equal(scored.message, 'This is Dana, please call me back about moving my appointment.');
    assert.deepEqual(agentTurns(scored).map((x: any) => x.action), ['greet', 'clarify', 'message', 'end']);
  });

  test('after hours the agent plays the after-hours message and takes a message instead of transferring', async () => {
    const api = t.as(acct.keys.sandbox);
    await api.patch(`/v1/ai/agents/${agentId}`, { business_hours: ALWAYS_CLOSED });
    try {
      const { started, scored } = await converse(t, acct.keys.sandbox, hooks, {
        to: acct.numbers.sandbox[0]!, caller_script: ['Can I talk to someone at the front desk?', 'Please call me back tomorrow morning about a cleaning.'],
      });
      const turns = agentTurns(scored);
      assert.ok(turns[0].text.startsWith(fixture.agent.afterHoursMessage), turns[0].text);
      assert.equal(turns[1].action, 'clarify');
      assert.match(turns[1].text, /closed/);
      assert.equal(scored.outcome, 'message_taken');
      assert.equal(scored.message, 'Please call me back tomorrow morning about a cleaning.');
      const call = (await api.get(`/v1/calls/${started.call_id}`)).body;
      assert.deepEqual(call.transfers, [], 'no transfer is attempted while closed');
    } finally {
      await api.patch(`/v1/ai/agents/${agentId}`, { business_hours: null });
    }
  });

  test('a caller who hangs up unhelped is abandoned', async () => {
    const { started, scored } = await converse(t, acct.keys.sandbox, hooks, { to: acct.numbers.sandbox[0]!, caller_script: [] });
    assert.equal(scored.outcome, 'abandoned');
    assert.equal(scored.transcript.length, 1);
    const call = (await t.as(acct.keys.sandbox).get(`/v1/calls/${started.call_id}`)).body;
    assert.equal(call.hangup_source, 'caller');
  });
});
