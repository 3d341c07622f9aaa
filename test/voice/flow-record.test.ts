// The record verb through HTTP on the sandbox: it makes a normal recording resource (source
// flow, mono, call.recording.started/stopped/ready on a real receiver) that captures what the
// simulated caller says (a caller script's say steps), ends on silence, a finish key or the
// maximum length, and has a transcript when asked. The flow goes on after it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type CreatedAccount, type TestServer } from '../helpers/server.ts';
import type { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { decodeWav } from '../../src/media/wav.ts';
import { MAGIC } from './voice-helpers.ts';
import { subscribeAll } from '../helpers/subscribe.ts';
import { waitForRunning } from './flow-helpers.ts';

let t: TestServer;
let acct: CreatedAccount;
let receiver: WebhookReceiver;
let number: { id: string; phone_number: string };
const api = () => t.as(acct.keys.sandbox);
const CALLER = '+14155550123';

before(async () => {
  // 1 simulated second is 100 ms: the caller's words must reach a record before its 2 s silence
  // timeout ends it, and at 0.02 (40 ms) a loaded machine's job delay lost that race.
  t = await startTestServer({ SWITCHBOARD_SIM_TIME_SCALE: '0.1' });
  acct = await t.createAccount('scale');
  receiver = await subscribeAll(t, acct.keys.sandbox);
  number = (await api().get('/v1/numbers?limit=1')).body.data[0];
});
after(async () => {
  await receiver.close();
  await t.close();
});

/** An inbound call to the number answered by `flow`, the caller acting from `script`; resolves when it completed. */
async function callIn(flow: unknown[], script: unknown[]): Promise<{ id: string; log: any[] }> {
  assert.equal((await api().patch(`/v1/numbers/${number.id}`, { voice_flow: flow })).status, 200);
  const res = await api().post('/v1/sandbox/inbound_calls', { from: CALLER, to: number.phone_number, caller_script: script });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  await receiver.waitForEvent('call.completed', res.body.id);
  return { id: res.body.id, log: (await api().get(`/v1/calls/${res.body.id}/flow`)).body.log };
}

async function readyRecording(id: string) {
  await receiver.waitForEvent('call.recording.ready', id);
  return (await api().get(`/v1/recordings/${id}`)).body;
}

describe('issue 12: the record verb', () => {
  test('captures what the caller says until silence: a recording with its events and transcript; the flow goes on', async () => {
    const words = 'please call me back tomorrow morning';
    const { id, log } = await callIn(
      [{ say: { text: 'Leave a message after the beep.' } }, { record: { silence_timeout: 2, transcribe: true } }, { say: { text: 'Thank you. Goodbye.' } }],
      [{ say: words }],
    );
    assert.deepEqual(log.map((e: any) => e.verb), ['say', 'record', 'say']);
    const result = log[1].result;
    assert.equal(result.reason, 'silence');
    // Six words at three a second (the last one 0.3 s long), then two seconds of silence. The
    // caller starts when its script's job runs, a little after the beep: no upper bound.
    assert.ok(result.duration_seconds >= 5 / 3 + 0.3 + 2 - 0.01, `duration ${result.duration_seconds}`);
    const recording = await readyRecording(result.recording_id);
    assert.deepEqual([recording.call_id, recording.source, recording.channels, recording.status], [id, 'flow', 1, 'ready']);
    assert.equal(recording.transcript.segments.map((s: any) => s.text).join(' '), words);
    assert.equal(recording.transcript.segments[0].speaker, 'caller', 'the caller spoke (a party, never its number)');
    const types = receiver.events().filter((e) => e.data.object?.id === result.recording_id).map((e) => e.type);
    assert.deepEqual([...new Set(types)], ['call.recording.started', 'call.recording.stopped', 'call.recording.processing', 'call.recording.ready']);
    const media = await fetch(`${t.url}/v1/recordings/${result.recording_id}/media`, { headers: { authorization: `Bearer ${acct.keys.sandbox}` } });
    const wav = decodeWav(Buffer.from(await media.arrayBuffer()));
    assert.equal(wav.channels, 1);
    assert.ok(Math.abs(wav.samples[0]!.length / wav.sampleRate - result.duration_seconds) < 0.01, 'the audio is as long as the record');
    const loud = (from: number, to: number) => wav.samples[0]!.slice(from * wav.sampleRate, to * wav.sampleRate).reduce((m, v) => Math.max(m, Math.abs(v)), 0);
    const spoken = recording.transcript.segments.at(-1).end;
    assert.ok(loud(0, spoken) > 10 * loud(spoken + 0.1, spoken + 1.9), 'speech while the caller spoke, near-silence after the last word');
  });

  test('a finish key ends it (the key is not recorded); without transcribe there is no transcript', async () => {
    const { log } = await callIn([{ record: { silence_timeout: 60, finish_on_key: '#' } }], [{ say: 'hello there' }, { wait: 2 }, { press: '#' }]);
    assert.equal(log[0].result.reason, 'finish_key');
    assert.ok(log[0].result.duration_seconds >= 2 - 0.01, `the key came after the 2 s wait: ${log[0].result.duration_seconds}`);
    const recording = await readyRecording(log[0].result.recording_id);
    assert.deepEqual(recording.transcript.segments, []);
  });

  test('max_length ends it when silence does not', async () => {
    const call = (await api().post('/v1/calls', { from: number.phone_number, to: MAGIC.staysUp, flow: [{ record: { max_length: 3, silence_timeout: 0, beep: false } }, { hangup: {} }] })).body;
    await receiver.waitForEvent('call.completed', call.id);
    const log = (await api().get(`/v1/calls/${call.id}/flow`)).body.log;
    assert.deepEqual(log.map((e: any) => [e.verb, e.result.reason ?? null]), [['record', 'max_length'], ['hangup', null]]);
    assert.equal(log[0].result.duration_seconds, 3);
    const recording = await readyRecording(log[0].result.recording_id);
    assert.equal(recording.duration_seconds, 3);
  });

  test('issue 12: its recording belongs to the verb: start, pause and stop through the API are 409; a new flow ends it and it becomes ready', async () => {
    const call = (await api().post('/v1/calls', { from: number.phone_number, to: MAGIC.staysUp, flow: [{ record: { max_length: 300, silence_timeout: 0, beep: false } }] })).body;
    await waitForRunning(api(), call.id, 0);
    const [recordingId] = (await api().get(`/v1/calls/${call.id}`)).body.recordings;
    for (const action of ['pause', 'stop', 'start']) {
      const res = await api().post(`/v1/recordings/${recordingId}/${action}`);
      assert.equal(res.status, 409, `${action}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, 'invalid_state_transition');
      assert.match(res.body.detail, /record verb .* POST \/v1\/calls\/call_\w+\/flow/);
    }
    assert.equal((await api().get(`/v1/recordings/${recordingId}`)).body.status, 'recording', 'nothing changed');
    // Moving the call on ends the verb: the recording is processed as usual.
    assert.equal((await api().post(`/v1/calls/${call.id}/flow`, { flow: [{ hangup: {} }] })).status, 200);
    const ready = await readyRecording(recordingId);
    assert.equal(ready.status, 'ready');
    const log = (await api().get(`/v1/calls/${call.id}/flow`)).body.log;
    assert.equal(log[0].result.reason, 'interrupted');
    assert.equal(log[0].result.recording_id, recordingId);
    // Stopping a recording already stopped returns it as it is (finishing actions repeat safely); restarting is still refused.
    const stop = await api().post(`/v1/recordings/${recordingId}/stop`);
    assert.deepEqual([stop.status, stop.body.status], [200, 'ready']);
    assert.equal((await api().post(`/v1/recordings/${recordingId}/start`)).status, 409);
  });

  test('on an outbound call it records the callee, speaker `callee`, as the live record verb does (test/sip/live-flow-speech.test.ts)', async () => {
    const message = 'this is the callee leaving a message';
    // No silence timeout (simulated seconds are short here): a key ends it once the callee spoke.
    const call = (await api().post('/v1/calls', { from: number.phone_number, to: MAGIC.staysUp, flow: [{ record: { max_length: 300, silence_timeout: 0, transcribe: true, beep: false } }, { hangup: {} }] })).body;
    await waitForRunning(api(), call.id, 0);
    const said = await api().post(`/v1/sandbox/calls/${call.id}/say`, { text: message });
    assert.equal(said.status, 200, JSON.stringify(said.body));
    assert.equal((await api().post(`/v1/sandbox/calls/${call.id}/press`, { digits: '#' })).status, 200);
    await receiver.waitForEvent('call.completed', call.id);
    const [recordingId] = (await api().get(`/v1/calls/${call.id}`)).body.recordings;
    const recording = await readyRecording(recordingId);
    assert.deepEqual(recording.transcript.segments.map((s: any) => [s.channel, s.speaker, s.text]), [[0, 'callee', message]]);
  });

  test('a caller who hangs up mid-message leaves a recording of what they said', async () => {
    const { log } = await callIn([{ record: { silence_timeout: 30, transcribe: true } }, { say: { text: 'never heard' } }], [{ say: 'sorry wrong number' }, { wait: 2 }, { hangup: true }]);
    assert.deepEqual(log.map((e: any) => [e.verb, e.result]), [['record', { reason: 'hangup' }]]);
    const recordings = (await api().get(`/v1/calls/${(await api().get('/v1/calls?limit=1')).body.data[0].id}/recordings`)).body.data;
    const recording = await readyRecording(recordings[0].id);
    assert.equal(recording.transcript.segments.map((s: any) => s.text).join(' '), 'sorry wrong number');
  });
});
