// A recorded sandbox call that is transferred: the transcript and the audio follow the call's
// timeline across the transfer (docs/voice.md: "a word's sound is exactly where its times
// say"). Driven by the sandbox test clock: the simulator runs at 100 real seconds per
// simulated second, so the real time a loaded machine takes between requests is a few
// simulated milliseconds, and the clock advances place every step.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useSandboxAccount } from '../helpers/sandbox-account.ts';
import { decodeWav, type PcmAudio } from '../../src/media/wav.ts';

const SCALE = 100;
const sandbox = useSandboxAccount({ SWITCHBOARD_SIM_TIME_SCALE: String(SCALE) });
const api = sandbox.api;

const FIRST = '+14155550142';
const SECOND = '+14155550143';

/** Moves the account's test clock forward by `seconds` of simulated (call) time. */
async function advance(seconds: number): Promise<void> {
  const res = await api().post('/v1/sandbox/clock/advance', { seconds: seconds * SCALE });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

async function statusIs(callId: string, status: string): Promise<any> {
  for (let i = 0; i < 200; i++) {
    const call = (await api().get(`/v1/calls/${callId}`)).body;
    if (call.status === status) return call;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.fail(`call ${callId} never became ${status}`);
}

async function media(id: string): Promise<PcmAudio> {
  const res = await fetch(`${sandbox.server.url}/v1/recordings/${id}/media`, { headers: { authorization: `Bearer ${sandbox.account.keys.sandbox}` } });
  assert.equal(res.status, 200);
  return decodeWav(Buffer.from(await res.arrayBuffer()));
}

async function readyRecording(id: string): Promise<any> {
  await sandbox.receiver.waitForEvent('call.recording.ready', id, 20_000);
  const res = await api().get(`/v1/recordings/${id}`);
  assert.equal(res.status, 200);
  assert.equal(res.body.status, 'ready');
  return res.body;
}

/** Places a call, lets it ring and answer on the test clock; returns it in progress. */
async function answeredCall(record: boolean): Promise<any> {
  const placed = await api().post('/v1/calls', { from: sandbox.from, to: FIRST, record });
  assert.equal(placed.status, 200, JSON.stringify(placed.body));
  await statusIs(placed.body.id, 'ringing');
  await advance(1); // RING_SECONDS
  return statusIs(placed.body.id, 'in_progress');
}

/** Transfers the call to SECOND and lets the new party answer (it rings 1 s). */
async function transfer(callId: string): Promise<void> {
  const res = await api().post(`/v1/calls/${callId}/transfer`, { to: SECOND });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  await advance(1);
  await sandbox.receiver.waitForEvent('call.transferred', callId);
}

const rms = (channel: Int16Array, from: number, to: number) => {
  let sum = 0;
  for (let i = from; i < to; i++) sum += channel[i]! * channel[i]!;
  return Math.sqrt(sum / Math.max(1, to - from));
};

/**
 * The transcript is a conversation on one timeline: no segment overlaps another, every
 * word's window holds speech on its channel, and where nobody speaks there is only comfort
 * noise. Returns the segments for further checks.
 */
function assertTranscriptMatchesAudio(recording: any, audio: PcmAudio): any[] {
  const segments: any[] = recording.transcript.segments;
  assert.ok(segments.length > 0, 'the recording has words');
  assert.equal(audio.samples[0]!.length, Math.round(recording.duration_seconds * audio.sampleRate));
  for (let i = 1; i < segments.length; i++) {
    assert.ok(segments[i].start >= segments[i - 1].end,
      `segment ${i} "${segments[i].text}" (${segments[i].start}-${segments[i].end}) overlaps "${segments[i - 1].text}" (${segments[i - 1].start}-${segments[i - 1].end})`);
  }
  const rate = audio.sampleRate;
  const voiced = audio.samples.map((c) => new Uint8Array(c.length));
  for (const segment of segments) {
    assert.ok(segment.end <= recording.duration_seconds + 1e-9, `"${segment.text}" ends within the audio`);
    for (const word of segment.words) {
      const from = Math.ceil(word.start * rate - 1e-6);
      const to = Math.ceil(word.end * rate - 1e-6);
      assert.ok(rms(audio.samples[segment.channel]!, from, to) > 1000, `"${word.text}" is heard at ${word.start}-${word.end} on channel ${segment.channel}`);
      voiced[segment.channel]!.fill(1, from, to);
    }
  }
  for (let c = 0; c < audio.channels; c++) {
    const channel = audio.samples[c]!;
    for (let i = 0; i < channel.length; i++) {
      if (!voiced[c]![i]) assert.ok(Math.abs(channel[i]!) <= 40, `only comfort noise where nobody speaks (channel ${c}, ${(i / rate).toFixed(3)} s)`);
    }
  }
  return segments;
}

/** Simulated talk seconds from the answer to `iso` (both stamped on the test clock). */
const talkSecondsAt = (call: any, iso: string) => (Date.parse(iso) - Date.parse(call.answered_at)) / 1000 / SCALE;
/** Equal to the millisecond the simulator rounds to, or within `tolerance`. */
const near = (actual: number, expected: number, what: string, tolerance = 0.002) =>
  assert.ok(Math.abs(actual - expected) <= tolerance, `${what}: ${actual}, expected ${expected}`);
/** The few simulated milliseconds real time adds between two requests on a loaded machine. */
const DRIFT = 0.05;

describe('a recorded call that is transferred', () => {
  test('the new party speaks after the moment of transfer, in the transcript and in the audio', async () => {
    const call = await answeredCall(true);
    const [recordingId] = call.recordings;
    await advance(2.5);
    await transfer(call.id);
    await advance(10); // the new party talks 5 s and hangs up
    const ended = await statusIs(call.id, 'completed');
    const transferredAt = talkSecondsAt(ended, ended.transfers[0].settled_at);
    near(transferredAt, 2.5 + 1, 'the new party answers after ringing 1 s', DRIFT);

    const recording = await readyRecording(recordingId);
    assert.equal(recording.duration_seconds, ended.duration_seconds, 'the recording covers the whole talk time');
    const segments = assertTranscriptMatchesAudio(recording, await media(recordingId));
    const first = segments.filter((s) => s.start < transferredAt);
    const second = segments.filter((s) => s.start >= transferredAt);
    assert.ok(first.length > 0, 'the first party was heard');
    assert.ok(first.every((s) => s.end <= transferredAt + 0.001), 'the first party is cut off at the transfer');
    assert.deepEqual(second.map((s) => s.speaker), ['callee', 'caller', 'callee'], 'the new party\'s whole dialogue is heard');
    near(second[0].start, transferredAt + 0.5, 'the new party starts talking half a second after it was connected');
    assert.ok(second.at(-1).end > 4.2 + 2, 'the new party is still heard seconds after the transfer');
  });

  test('a recording started after the transfer starts its timeline at its own start', async () => {
    const call = await answeredCall(false);
    await advance(1);
    await transfer(call.id);
    await advance(0.25);
    const started = await api().post(`/v1/calls/${call.id}/recordings`, {});
    assert.equal(started.status, 200, JSON.stringify(started.body));
    await advance(10);
    const ended = await statusIs(call.id, 'completed');
    const transferredAt = talkSecondsAt(ended, ended.transfers[0].settled_at);
    const startedAt = talkSecondsAt(ended, started.body.created_at);
    near(startedAt - transferredAt, 0.25, 'the recording starts a quarter second after the transfer', DRIFT);

    const recording = await readyRecording(started.body.id);
    const segments = assertTranscriptMatchesAudio(recording, await media(started.body.id));
    assert.deepEqual(segments.map((s) => s.speaker), ['callee', 'caller', 'callee'], 'only the new party\'s dialogue, whole');
    near(segments[0].start, transferredAt + 0.5 - startedAt, 'the new party, connected 0.25 s before the recording, speaks 0.25 s into it');
  });
});
