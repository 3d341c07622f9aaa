// Call flows through the HTTP surface: an inline flow on POST /v1/calls is validated at once
// (400 naming each JSON path), runs when the call is answered (say, pause, hangup on the
// simulator's media port, on the test clock), ends the call when it says so or runs out, and
// leaves a log of every verb on GET /v1/calls/{id}/flow. Webhooks reach a real receiver.
// issue 12: say, pause and hangup verbs; the flow log; an inline flow validated at once (400, errors[] by path); the seed's 200 unchanged; a flow's end in hangup_reason.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MAGIC, ORDINARY, waitForTypes } from './voice-helpers.ts';
import { useSandboxAccount } from '../helpers/sandbox-account.ts';

const sandbox = useSandboxAccount();
const api = () => sandbox.api();

const seconds = (a: string, b: string) => (Date.parse(b) - Date.parse(a)) / 1000;

describe('an inline flow on POST /v1/calls', () => {
  test('an invalid flow is refused with 400 naming every bad path, and no call is created', async () => {
    const before = (await api().get('/v1/calls?limit=100')).body.data.length;
    const res = await api().post('/v1/calls', {
      from: sandbox.from, to: MAGIC.staysUp,
      flow: [{ say: { text: 'hi' } }, { pause: { seconds: 0 } }, { say: { loop: 99 } }, { dance: {} }, { say: { text: 'a' }, hangup: {} }],
    });
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.code, 'validation_failed');
    assert.deepEqual(res.body.errors.map((e: any) => e.field), [
      'flow[1].pause.seconds', 'flow[2].say.text', 'flow[2].say.loop', 'flow[3].dance', 'flow[4]',
    ]);
    assert.match(res.body.detail, /flow\[2\]\.say\.loop must be at most 10/);
    const empty = await api().post('/v1/calls', { from: sandbox.from, to: MAGIC.staysUp, flow: [] });
    assert.equal(empty.status, 400);
    assert.equal(empty.body.errors[0].field, 'flow');
    assert.equal((await api().get('/v1/calls?limit=100')).body.data.length, before, 'nothing was created');
  });

  test('the 200 response is the same shape with or without a flow', async () => {
    const plain = await api().post('/v1/calls', { from: sandbox.from, to: MAGIC.busy });
    const flowed = await api().post('/v1/calls', { from: sandbox.from, to: MAGIC.busy, flow: [{ hangup: {} }] });
    assert.equal(flowed.status, 200);
    assert.deepEqual(Object.keys(flowed.body).sort(), Object.keys(plain.body).sort());
    assert.equal(flowed.body.status, 'queued');
  });

  test('say, pause, say twice, hangup: each verb takes its time on the test clock, then the flow hangs up', async () => {
    const flow = [
      { say: { text: 'Thanks for calling Switchboard.' } }, // 4 words: 4/3 + 0.4 s
      { pause: { seconds: 2 } },
      { say: { text: 'Goodbye now.', loop: 2 } }, // (2/3 + 0.4) x 2 s
      { hangup: {} },
    ];
    const call = (await api().post('/v1/calls', { from: sandbox.from, to: MAGIC.staysUp, flow })).body;
    await waitForTypes(sandbox.receiver, call.id, ['call.queued', 'call.ringing', 'call.answered', 'call.completed']);
    const done = (await api().get(`/v1/calls/${call.id}`)).body;
    assert.equal(done.status, 'completed');
    assert.equal(done.hangup_cause, 'normal_clearing');
    assert.equal(done.hangup_source, 'caller', 'our side hung up, not the called party');
    // issue 12: the reason says the flow did it, not the API.
    assert.equal(done.hangup_reason, 'The call\'s flow hung up (a hangup verb).');

    const res = await api().get(`/v1/calls/${call.id}/flow`);
    assert.equal(res.status, 200);
    assert.equal(res.body.object, 'call_flow');
    assert.deepEqual(res.body.flow[2], { say: { text: 'Goodbye now.', loop: 2 } });
    assert.equal(res.body.position, 4);
    const log = res.body.log;
    assert.deepEqual(log.map((e: any) => [e.index, e.verb, e.result]), [
      [0, 'say', { reason: 'finished' }], [1, 'pause', { reason: 'finished' }], [2, 'say', { reason: 'finished' }], [3, 'hangup', {}],
    ]);
    // Simulated seconds are real seconds x SWITCHBOARD_SIM_TIME_SCALE (0.01 in tests). A verb
    // never ends before its time; how late its job runs depends on the machine, so no upper bound.
    const scale = 0.01;
    const took = log.map((e: any) => seconds(e.started_at, e.ended_at) / scale);
    const ms = 0.001 / scale;
    assert.ok(took[0] >= 4 / 3 + 0.4 - ms, `say took ${took[0]} simulated s`);
    assert.ok(took[1] >= 2 - ms, `pause took ${took[1]} simulated s`);
    assert.ok(took[2] >= 2 * (2 / 3 + 0.4) - ms, `say x2 took ${took[2]} simulated s`);
    for (let i = 1; i < log.length; i++) assert.ok(log[i].started_at >= log[i - 1].ended_at, 'verbs run one after another');
    assert.ok(Math.abs(seconds(log[3].started_at, done.ended_at)) < 0.05, 'the hangup verb ended the call');
  });

  test('a flow that runs out of verbs ends the call', async () => {
    const call = (await api().post('/v1/calls', { from: sandbox.from, to: MAGIC.staysUp, flow: [{ pause: { seconds: 1 } }] })).body;
    await waitForTypes(sandbox.receiver, call.id, ['call.queued', 'call.ringing', 'call.answered', 'call.completed']);
    const flow = (await api().get(`/v1/calls/${call.id}/flow`)).body;
    assert.deepEqual(flow.log.map((e: any) => e.result), [{ reason: 'finished' }]);
    const ended = (await api().get(`/v1/calls/${call.id}`)).body;
    assert.equal(ended.hangup_source, 'caller');
    // issue 12: a flow that ran out is not "hung up through the API"; its call.completed says the same.
    assert.match(ended.hangup_reason, /^The call's flow ran out of verbs/);
    const completed = sandbox.receiver.events().find((e) => e.type === 'call.completed' && e.data.object.id === call.id)!;
    assert.equal(completed.data.object.hangup_reason, ended.hangup_reason);
  });

  test('an API hangup during a flow still says it was the API', async () => {
    const call = (await api().post('/v1/calls', { from: sandbox.from, to: MAGIC.staysUp, flow: [{ pause: { seconds: 600 } }] })).body;
    await sandbox.receiver.waitForEvent('call.answered', call.id);
    const hung = await api().post(`/v1/calls/${call.id}/hangup`);
    assert.equal(hung.status, 200, JSON.stringify(hung.body));
    assert.equal(hung.body.hangup_reason, 'The call was hung up through the API (POST /v1/calls/{id}/hangup).');
  });

  test('the called party hanging up mid-verb ends the verb with reason hangup', async () => {
    // ORDINARY talks 5 s and hangs up; the pause would last 60.
    const call = (await api().post('/v1/calls', { from: sandbox.from, to: ORDINARY, flow: [{ pause: { seconds: 60 } }, { say: { text: 'never heard' } }] })).body;
    await waitForTypes(sandbox.receiver, call.id, ['call.queued', 'call.ringing', 'call.answered', 'call.completed']);
    const ended = (await api().get(`/v1/calls/${call.id}`)).body;
    assert.equal(ended.hangup_source, 'callee');
    const flow = (await api().get(`/v1/calls/${call.id}/flow`)).body;
    assert.deepEqual(flow.log.map((e: any) => [e.verb, e.result]), [['pause', { reason: 'hangup' }]]);
    assert.equal(flow.log[0].ended_at, ended.ended_at);
  });

  test('a call without a flow has none; another mode cannot read it', async () => {
    const call = (await api().post('/v1/calls', { from: sandbox.from, to: MAGIC.busy })).body;
    const res = await api().get(`/v1/calls/${call.id}/flow`);
    assert.deepEqual(res.body, { object: 'call_flow', call_id: call.id, flow: null, position: null, log: [] });
    const other = await sandbox.server.as(sandbox.account.keys.live).get(`/v1/calls/${call.id}/flow`);
    assert.equal(other.status, 404);
  });
});
