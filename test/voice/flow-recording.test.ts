// Issue 12, "The sandbox": a recording of a flow call holds the audio of what was said and
// played, with its transcript. Through HTTP on the sandbox (both databases): an outbound call
// with `record: true` runs a flow (say, play of a WAV served on 127.0.0.1, a speech gather
// whose long prompt the far end interrupts by speaking through POST /v1/sandbox/calls/{id}/say,
// a closing say). The recording is stereo: the flow (the caller side of an outbound call) on
// channel 0, the far end on channel 1; its transcript has the said lines with their times, and
// the audio has energy exactly there, on the right channel. A mono recording started through
// the API hears both parties mixed. The simulator runs at real speed and the test moves the
// account's test clock (POST /v1/sandbox/clock/advance) through each verb, so the far end
// speaks inside the long prompt (10 s of real time) however busy the machine is, and no test
// waits for simulated time to pass on the wall clock.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { useSandboxAccount } from '../helpers/sandbox-account.ts';
import { decodeWav, encodeWav, type PcmAudio } from '../../src/media/wav.ts';
import { MAGIC } from './voice-helpers.ts';
import { waitForRunning } from './flow-helpers.ts';

const sandbox = useSandboxAccount({ SWITCHBOARD_SIM_TIME_SCALE: '1' });
let audio: Server;
let toneUrl: string;
const api = sandbox.api;

/** One second of a loud 500 Hz tone at 8 kHz: what the play verb plays. */
const TONE = encodeWav({ sampleRate: 8000, channels: 1, samples: [Int16Array.from({ length: 8000 }, (_, i) => Math.round(12000 * Math.sin(2 * Math.PI * 500 * i / 8000)))] });
const PROMPT = 'Please tell us in a few words what you are calling about today so that we can send your call to the right team without delay thank you';

before(async () => {
  audio = createServer((req, res) => {
    if (req.url === '/tone.wav') res.writeHead(200, { 'content-type': 'audio/wav' }).end(TONE);
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => audio.listen(0, '127.0.0.1', r));
  toneUrl = `http://127.0.0.1:${(audio.address() as AddressInfo).port}/tone.wav`;
});
after(async () => {
  audio.closeAllConnections();
  await new Promise<void>((r) => audio.close(() => r()));
});

async function readyRecording(id: string) {
  await sandbox.receiver.waitForEvent('call.recording.ready', id);
  return (await api().get(`/v1/recordings/${id}`)).body;
}

async function media(id: string): Promise<PcmAudio> {
  const res = await fetch(`${sandbox.server.url}/v1/recordings/${id}/media`, { headers: { authorization: `Bearer ${sandbox.account.keys.sandbox}` } });
  assert.equal(res.status, 200);
  return decodeWav(Buffer.from(await res.arrayBuffer()));
}

/** Loudest sample of `channel` in [from, to) seconds. */
function peak(wav: PcmAudio, channel: number, from: number, to: number): number {
  const samples = wav.samples[channel]!.subarray(Math.max(0, Math.ceil(from * wav.sampleRate)), Math.floor(to * wav.sampleRate));
  return samples.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
}

/** Comfort noise stays under 40; a voiced word or the tone peaks in the thousands. */
const LOUD = 1000;
const QUIET = 100;
/** The played tone peaks at 12000; simulated voices stay under 8000. */
const TONE_LEVEL = 10_000;

/** Moves the account's test clock `seconds` on (the scale is 1); every job that fell due has run when it answers. */
async function advance(seconds: number): Promise<void> {
  const res = await api().post('/v1/sandbox/clock/advance', { seconds });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

/** Simulated seconds a say of `words` words lasts: 3 words a second, then a 0.4 s gap. */
const sayFor = (words: number) => words / 3 + 0.4;
/** A little past a step's end, so the job that ends it is due. */
const PAST = 0.05;

/** A call placed with `flow` to a party that stays on the line, answered (it rings 1 s); its id. */
async function place(flow: unknown[], record: boolean): Promise<string> {
  const res = await api().post('/v1/calls', { from: sandbox.from, to: MAGIC.staysUp, record, flow });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  await advance(1 + PAST);
  await sandbox.receiver.waitForEvent('call.answered', res.body.id);
  return res.body.id;
}

/** Moves the clock through the welcome and the tone, to the gather (index 2) listening. */
async function throughWelcomeAndTone(callId: string): Promise<void> {
  await advance(sayFor(4) + PAST);
  // The play starts once its WAV is fetched (over real HTTP): its 1 s runs from there.
  await waitForRunning(api(), callId, 1);
  await advance(1 + PAST);
  await waitForRunning(api(), callId, 2);
}

/** Has the far end interrupt the gather (index 2) by saying `words` while its prompt plays. */
async function interruptGather(callId: string, words: string): Promise<void> {
  await waitForRunning(api(), callId, 2);
  const said = await api().post(`/v1/sandbox/calls/${callId}/say`, { text: words });
  assert.equal(said.status, 200, JSON.stringify(said.body));
}

/** Moves the clock past the far end's `words`-word utterance and its 1 s speech_timeout, then through the goodbye and the hang-up. */
async function throughGoodbye(callId: string, words: number): Promise<void> {
  await advance(words / 3 + 1 + PAST);
  await waitForRunning(api(), callId, 3);
  await advance(sayFor(3) + PAST);
}

const FLOW = () => [
  { say: { text: 'Welcome to Acme support.' } },
  { play: { url: toneUrl } },
  { gather: { input: ['speech'], speech_timeout: 1, timeout: 30, prompts: [{ say: { text: PROMPT } }] } },
  { say: { text: 'Thank you, goodbye.' } },
  { hangup: {} },
];

describe('issue 12: a sandbox recording of a flow call', () => {
  test('record: true gives a stereo recording: the flow says and plays on one channel, the far end speaks on the other, with the transcript', async () => {
    const callId = await place(FLOW(), true);
    await throughWelcomeAndTone(callId);
    await interruptGather(callId, 'billing please');
    await throughGoodbye(callId, 2);
    await sandbox.receiver.waitForEvent('call.completed', callId);
    const call = (await api().get(`/v1/calls/${callId}`)).body;
    assert.equal(call.recordings.length, 1);
    const recording = await readyRecording(call.recordings[0]);
    assert.deepEqual([recording.source, recording.channels], ['record', 2]);

    const lines = recording.transcript.segments.map((s: any) => [s.channel, s.speaker, s.text]);
    // The barge-in cut the prompt: the far end's words come after a strict prefix of it.
    const cutPrompt = lines[1]?.[2] as string;
    assert.ok(PROMPT.startsWith(cutPrompt) && cutPrompt.length < PROMPT.length, `the prompt was cut: ${cutPrompt}`);
    // An outbound call: the flow speaks as the caller, the far end is the callee, the same
    // speakers a live recording gives (test/sip/speech-calls.test.ts: the trunk is `callee`).
    assert.deepEqual(lines, [
      [0, 'caller', 'Welcome to Acme support.'],
      [0, 'caller', cutPrompt],
      [1, 'callee', 'billing please'],
      [0, 'caller', 'Thank you, goodbye.'],
    ]);
    const [welcome, prompt, caller, goodbye] = recording.transcript.segments;
    // Said lines are timed at the simulator's pace, from the answer (the recording's 0).
    assert.deepEqual(welcome.words.map((w: any) => [w.start, w.end]), [[0, 0.333], [0.333, 0.667], [0.667, 1], [1, 1.333]]);
    assert.ok(prompt.end <= caller.start + 0.001, 'the prompt stops where the far end starts speaking');
    assert.ok(caller.end < goodbye.start);

    const wav = await media(recording.id);
    assert.deepEqual([wav.channels, wav.sampleRate], [2, 8000]);
    assert.ok(Math.abs(wav.samples[0]!.length / 8000 - recording.duration_seconds) < 0.01);
    for (const segment of [welcome, prompt, goodbye]) {
      for (const word of segment.words) {
        assert.ok(peak(wav, 0, word.start, word.end) > LOUD, `the flow's "${word.text}" is heard on channel 0 at ${word.start}`);
        assert.ok(peak(wav, 1, word.start, word.end) < QUIET, `channel 1 is quiet while the flow says "${word.text}"`);
      }
    }
    for (const word of caller.words) {
      assert.ok(peak(wav, 1, word.start, word.end) > LOUD, `the far end's "${word.text}" is heard on channel 1 at ${word.start}`);
      assert.ok(peak(wav, 0, word.start, word.end) < QUIET, `channel 0 is quiet while the far end says "${word.text}"`);
    }
    // The tone (louder than any simulated voice) plays for its 1 s between the welcome and the
    // prompt, on the flow's channel only. When it starts depends on its fetch, so it is found.
    const tone = [...wav.samples[0]!.keys()].filter((i) => Math.abs(wav.samples[0]![i]!) > TONE_LEVEL);
    const [toneFrom, toneTo] = [tone[0]! / 8000, tone.at(-1)! / 8000];
    assert.ok(Math.abs(toneTo - toneFrom - 1) < 0.01, `the whole 1 s WAV is heard: ${toneFrom}..${toneTo}`);
    assert.ok(toneFrom >= welcome.end + 0.4 - 0.001 && toneTo <= prompt.start, 'after the welcome (and its gap), before the prompt');
    assert.ok(peak(wav, 1, toneFrom, toneTo) < QUIET, 'and not on channel 1');
    // After the cut, the rest of the prompt is never heard: channel 0 is quiet while the far end speaks and waits.
    assert.ok(peak(wav, 0, prompt.end + 0.05, goodbye.start - 0.05) < QUIET, 'nothing of the prompt after the barge-in');
  });

  test('a mono recording started through the API hears both parties mixed into its one channel', async () => {
    const callId = await place(FLOW(), false);
    await sandbox.receiver.waitForEvent('call.answered', callId);
    const started = await api().post(`/v1/calls/${callId}/recordings`, { channels: 1 });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    await throughWelcomeAndTone(callId);
    await interruptGather(callId, 'sales');
    await throughGoodbye(callId, 1);
    await sandbox.receiver.waitForEvent('call.completed', callId);
    const recording = await readyRecording(started.body.id);
    assert.deepEqual([recording.source, recording.channels], ['api', 1]);
    const caller = recording.transcript.segments.find((s: any) => s.speaker === 'callee');
    assert.equal(caller.text, 'sales');
    const goodbye = recording.transcript.segments.at(-1);
    assert.equal(goodbye.text, 'Thank you, goodbye.');
    const wav = await media(recording.id);
    assert.equal(wav.channels, 1);
    assert.ok(peak(wav, 0, caller.start, caller.end) > LOUD, 'the far end is heard');
    assert.ok(peak(wav, 0, goodbye.start, goodbye.end) > LOUD, 'the flow is heard');
  });
});
