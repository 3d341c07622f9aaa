// The dial and transfer verbs through HTTP on the sandbox: dial bridges the caller to a
// number whose behaviour the simulator's magic numbers decide (busy, no answer and failure
// are outcomes, not a dropped call), fires call.dial.completed, and hands the outcome to its
// action_url on a real flow server; transfer is the call's blind transfer, and the flow goes
// on when it fails. Webhooks reach a real receiver.
// issue 12: the dial verb (bridge, busy and no answer as results, time_limit, action_url, call.dial.completed) and the transfer verb.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MAGIC, ORDINARY } from './voice-helpers.ts';
import { allEventsOf, waitForFlowEvent, waitForRunning } from './flow-helpers.ts';
import { decodeWav } from '../../src/media/wav.ts';
import { useSandboxAccount } from '../helpers/sandbox-account.ts';

const sandbox = useSandboxAccount({}, { flowServer: true });
const api = () => sandbox.api();

async function place(flow: unknown[]): Promise<string> {
  const res = await api().post('/v1/calls', { from: sandbox.from, to: MAGIC.staysUp, flow });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.id;
}

const logOf = async (id: string) => (await api().get(`/v1/calls/${id}/flow`)).body.log.map((e: any) => [e.verb, e.result]);

describe('dial', () => {
  test('answered: the two talk, call.dial.completed says so, and the action_url answers what runs next', async () => {
    sandbox.flowServer.routes.set('/after-dial', [{ say: { text: 'Thanks for holding.' } }, { hangup: {} }]);
    const id = await place([{ dial: { to: ORDINARY, action_url: `${sandbox.flowServer.url}/after-dial` } }, { say: { text: 'never reached' } }]);
    const [event] = await waitForFlowEvent(sandbox.receiver, id, 'call.dial.completed');
    assert.deepEqual(event!.data.object, { object: 'call_dial', call_id: id, index: 0, to: ORDINARY, outcome: 'completed', talk_seconds: 5 });
    const [req] = await sandbox.flowServer.waitForRequests('/after-dial');
    assert.equal(req!.verified, true);
    assert.equal(req!.body.reason, 'dial');
    assert.deepEqual(req!.body.dial, event!.data.object);
    assert.equal(req!.body.gather, null);
    await sandbox.receiver.waitForEvent('call.completed', id);
    assert.deepEqual(await logOf(id), [
      ['dial', { to: ORDINARY, outcome: 'completed', talk_seconds: 5 }], ['say', { reason: 'finished' }], ['hangup', {}],
    ]);
    assert.deepEqual(allEventsOf(sandbox.receiver, id).map((e) => e.type), ['call.queued', 'call.ringing', 'call.answered', 'call.dial.completed', 'call.completed']);
    const call = (await api().get(`/v1/calls/${id}`)).body;
    assert.equal(call.hangup_source, 'caller', 'our flow hung up, after the bridge');
    assert.ok(call.duration_seconds >= 6, `the call lasted the ring and the talk (${call.duration_seconds} s)`);
  });

  test('a recorded call hears the dialled party: its lines are on the flow\'s channel while the bridge is up, in the transcript and in the audio, as a live bridge records them', async () => {
    const res = await api().post('/v1/calls', { from: sandbox.from, to: MAGIC.staysUp, record: true, flow: [{ say: { text: 'Connecting you now.' } }, { dial: { to: ORDINARY } }, { hangup: {} }] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const id = res.body.id;
    await sandbox.receiver.waitForEvent('call.completed', id);
    const [{ id: recordingId }] = (await api().get(`/v1/calls/${id}/recordings`)).body.data;
    await sandbox.receiver.waitForEvent('call.recording.ready', recordingId, 30_000);
    const recording = (await api().get(`/v1/recordings/${recordingId}`)).body;
    assert.equal(recording.channels, 2);
    const segments = recording.transcript.segments as Array<{ channel: number; speaker: string; text: string; start: number; end: number }>;
    // An outbound call: the flow's side (and so whoever it bridges in) is the caller, channel 0,
    // as on a live call, whose recording hears the bridged leg on our side; the far end (which
    // says nothing here) is channel 1. No phone number is a speaker: the dial result names it.
    assert.deepEqual([...new Set(segments.map((s) => s.speaker))], ['caller']);
    const said = segments.filter((s) => s.text === 'Connecting you now.');
    const dialled = segments.filter((s) => s.start > said[0]!.end);
    assert.deepEqual(said.map((s) => [s.channel, s.speaker]), [[0, 'caller']]);
    assert.ok(dialled.length >= 2, `the dialled party speaks: ${JSON.stringify(segments)}`);
    assert.ok(dialled.every((s) => s.channel === 0 && s.speaker === 'caller'), 'on the flow\'s channel, as the flow\'s party');
    assert.equal(dialled[0]!.text, 'Hello?', 'it answers the way a called number does in the sandbox');
    assert.equal(segments.filter((s) => s.channel === 1).length, 0, 'the far end said nothing');
    // It rings 1 s after the say, answers, and speaks from half a second on for its 5 s of talk.
    const answeredAt = dialled[0]!.start - 0.5;
    assert.ok(answeredAt >= said[0]!.end + 1 - 0.01, `answered at ${answeredAt}, the say ended at ${said[0]!.end}`);
    assert.ok(dialled.at(-1)!.end <= answeredAt + 5 + 0.01, `last word at ${dialled.at(-1)!.end}: ${JSON.stringify(segments)}`);

    const media = await fetch(`${sandbox.server.url}/v1/recordings/${recordingId}/media`, { headers: { authorization: `Bearer ${sandbox.account.keys.sandbox}` } });
    const wav = decodeWav(Buffer.from(await media.arrayBuffer()));
    const peak = (channel: number, from: number, to: number) => wav.samples[channel]!.slice(Math.round(from * wav.sampleRate), Math.round(to * wav.sampleRate)).reduce((m, v) => Math.max(m, Math.abs(v)), 0);
    for (const s of dialled) {
      assert.ok(peak(0, s.start, s.end) > 10 * peak(1, s.start, s.end), `"${s.text}" is heard on channel 0 (${peak(0, s.start, s.end)}) and not on 1 (${peak(1, s.start, s.end)})`);
    }
  });

  test('busy, no answer and failure are outcomes: the flow goes on with its next verb', async () => {
    for (const [to, outcome] of [[MAGIC.busy, 'busy'], [MAGIC.noAnswer, 'no_answer'], [MAGIC.failed, 'failed']] as const) {
      const id = await place([{ dial: { to, timeout: 3 } }, { say: { text: 'Nobody could take your call.' } }]);
      const [event] = await waitForFlowEvent(sandbox.receiver, id, 'call.dial.completed');
      assert.equal(event!.data.object.outcome, outcome);
      assert.equal(event!.data.object.talk_seconds, 0);
      await sandbox.receiver.waitForEvent('call.completed', id);
      assert.deepEqual(await logOf(id), [['dial', { to, outcome, talk_seconds: 0 }], ['say', { reason: 'finished' }]]);
      assert.equal((await api().get(`/v1/calls/${id}`)).body.status, 'completed', `${outcome} did not drop the call`);
    }
  });

  test('time_limit cuts the bridge; defaults are filled in', async () => {
    const id = await place([{ dial: { to: MAGIC.staysUp, time_limit: 2 } }]);
    const [event] = await waitForFlowEvent(sandbox.receiver, id, 'call.dial.completed');
    assert.equal(event!.data.object.outcome, 'completed');
    assert.equal(event!.data.object.talk_seconds, 2);
    const flow = (await api().get(`/v1/calls/${id}/flow`)).body;
    assert.deepEqual(flow.flow[0], { dial: { to: MAGIC.staysUp, time_limit: 2, timeout: 30 } });
  });

  test('an invalid dial is a 400 naming the path', async () => {
    const res = await api().post('/v1/calls', { from: sandbox.from, to: MAGIC.staysUp, flow: [{ dial: { to: '555', timeout: 0 } }] });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body.errors.map((e: any) => e.field).sort(), ['flow[0].dial.timeout', 'flow[0].dial.to']);
  });

  test('a new flow interrupts a bridge: outcome interrupted with the talk so far', async () => {
    const id = await place([{ dial: { to: MAGIC.staysUp } }]);
    await waitForRunning(api(), id, 0);
    assert.equal((await api().post(`/v1/calls/${id}/flow`, { flow: [{ hangup: {} }] })).status, 200);
    const [event] = await waitForFlowEvent(sandbox.receiver, id, 'call.dial.completed');
    assert.equal(event!.data.object.outcome, 'interrupted');
    await sandbox.receiver.waitForEvent('call.completed', id);
    assert.deepEqual((await logOf(id)).map((e: any) => e[0]), ['dial', 'hangup']);
  });
});

describe('transfer', () => {
  test('a failed transfer is an outcome: call.transfer_failed, and the flow goes on', async () => {
    const id = await place([{ transfer: { to: MAGIC.busy } }, { say: { text: 'They are busy.' } }]);
    await sandbox.receiver.waitForEvent('call.transfer_failed', id);
    await sandbox.receiver.waitForEvent('call.completed', id);
    assert.deepEqual(await logOf(id), [['transfer', { to: MAGIC.busy, outcome: 'busy' }], ['say', { reason: 'finished' }]]);
  });

  test('a connected transfer hands the caller over: the rest of the flow does not run', async () => {
    const id = await place([{ transfer: { to: ORDINARY } }, { say: { text: 'never heard' } }]);
    await sandbox.receiver.waitForEvent('call.transferred', id);
    await sandbox.receiver.waitForEvent('call.completed', id);
    assert.deepEqual(await logOf(id), [['transfer', { to: ORDINARY, outcome: 'completed' }]]);
    assert.equal((await api().get(`/v1/calls/${id}`)).body.hangup_source, 'callee', 'the new party hung up');
  });

  test('a transfer the call cannot start is a failed outcome at once', async () => {
    // The called party is MAGIC.staysUp: transferring to it is transferring to the party already on the call.
    const id = await place([{ transfer: { to: MAGIC.staysUp } }, { hangup: {} }]);
    await sandbox.receiver.waitForEvent('call.completed', id);
    const log = await logOf(id);
    assert.equal(log[0][1].outcome, 'failed');
    assert.match(log[0][1].detail, /already on the call/);
    assert.deepEqual(log[1], ['hangup', {}]);
  });
});
