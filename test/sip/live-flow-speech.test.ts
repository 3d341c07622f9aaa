// Issue 13, flow verbs that need speech on OUTBOUND live calls, against SIPp as the trunk (it
// answers and speaks lines eSpeak NG synthesised for the test) and the local server
// implementing OpenAI's audio API shapes (test/helpers/openai-audio.ts: it "recognises" the
// real audio it is sent against the clips the test teaches it; its speech is a tone per
// character, so what we sent can be found in the recording).
// - `agent` after a `say`: the AI agent takes the answered call over, hears the callee's
//   question through speech-to-text, answers from its documents aloud and hangs up after
//   goodbye.
// - `record` with `transcribe: true`: a flow recording of the callee whose transcript (timed
//   words from the endpoint) is read back through the API, with call.recording.* events at a
//   real webhook receiver, as in the sandbox (test/voice/flow-record.test.ts).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeUdpPort, peerAvailable, runSipp, SCENARIOS, type SippRun } from '../helpers/sipp.ts';
import { startLiveVoice, type LiveVoice } from '../helpers/live-voice.ts';
import { matchAudio } from '../helpers/audio-match.ts';
import { writeRtpPcap } from '../helpers/pcap.ts';
import { createFixtureAgent, fixture } from '../helpers/ai.ts';
import { startFakeOpenAiAudio, speechSection, fakeSpeechBySentence, FAKE_TTS_RATE, type FakeOpenAiAudio } from '../helpers/openai-audio.ts';
import type { ReceivedEvent } from '../helpers/webhook-receiver.ts';
import { decodeWav } from '../../src/media/wav.ts';
import { decodeG711, encodeG711 } from '../../src/carriers/rtp/g711.ts';
import { toLineRate } from '../../src/media/resample.ts';
import { EmbeddedTextToSpeech } from '../../src/carriers/speech/text-to-speech.ts';

const hasSipp = peerAvailable('sipp');
const FROM = '+14155550142';
const TO = '+14155550177';
const KEY = 'sk-test-live-flow-speech';
const RATE = 8000;
const QUESTION = 'What are your hours on Wednesday?';
const GOODBYE = 'Great, thanks so much. Goodbye.';
const MESSAGE = 'please call me back tomorrow morning about the delivery';

let lv: LiveVoice;
let trunkPort: number;
let api: FakeOpenAiAudio;
const clips = new Map<string, Int16Array>();

/** What audio sounds like after the line's µ-law. */
const onTheLine = (pcm: Int16Array) => decodeG711('PCMU', encodeG711('PCMU', pcm));

before(async () => {
  if (!hasSipp) return;
  api = await startFakeOpenAiAudio(KEY);
  const tts = new EmbeddedTextToSpeech();
  for (const line of [QUESTION, GOODBYE, MESSAGE]) {
    clips.set(line, await tts.synthesize(line, { language: 'en-US' }));
    api.teach(line, onTheLine(clips.get(line)!));
  }
  await tts.close();
  trunkPort = await freeUdpPort();
  process.env.TEST_LIVE_FLOW_SPEECH_KEY = KEY;
  lv = await startLiveVoice({
    rtp: [49000, 49498],
    trunks: [`{ name: sipp, host: 127.0.0.1, port: ${trunkPort}, codecs: [PCMU] }`],
    sections: speechSection(api, 'TEST_LIVE_FLOW_SPEECH_KEY'),
    numbers: { [FROM]: 'sipp' },
  });
});

after(async () => {
  await lv?.close();
  await api?.close();
});

const live = () => lv.live();

/**
 * A SIPp trunk that answers and then speaks: each line starts at its second after SIPp's
 * ACK-plus-pause (0.6 s), quiet around them, `total` seconds in all; it waits for our BYE.
 */
function speakingTrunk(lines: Array<[number, string]>, total: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'sb-live-flow-speech-'));
  const pcm = new Int16Array(total * RATE);
  for (const [at, text] of lines) pcm.set(clips.get(text)!, at * RATE);
  const line = encodeG711('PCMU', pcm);
  const payloads: Uint8Array[] = [];
  for (let at = 0; at + 160 <= line.length; at += 160) payloads.push(line.subarray(at, at + 160));
  writeRtpPcap(join(dir, 'speech.pcap'), payloads);
  const scenario = join(dir, 'uas-answer-speak.xml');
  writeFileSync(scenario, readFileSync(join(SCENARIOS, 'uas-answer-speak.xml.tpl'), 'utf8').replace('PCAP_PATH', join(dir, 'speech.pcap')));
  return scenario;
}

async function place(flow: unknown[], extra: Record<string, unknown> = {}) {
  const res = await live().post('/v1/calls', { from: FROM, to: TO, flow, ...extra });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as { id: string };
}

async function sippOk(sipp: SippRun) {
  const result = await sipp.done;
  assert.equal(result.code, 0, result.errors);
}

const ofCall = (callId: string) => (e: ReceivedEvent) => e.data.object.id === callId || e.data.object.call_id === callId;

describe('issue 13: the agent verb on an outbound live call', { skip: !hasSipp }, () => {
  test('say, then the agent: it greets the callee, hears the question through speech-to-text, answers from its documents aloud and hangs up after goodbye', async () => {
    const agentId = (await createFixtureAgent(lv.t, lv.acct.keys.live, null)).agent.id;
    const intro = 'Hello, this is a call from Maple Street.';
    // The say and the greeting (the fake speaks 60 ms a character, 80 at most) are over by 9 s.
    const sipp = await runSipp({ scenario: speakingTrunk([[10, QUESTION], [21, GOODBYE]], 36), port: trunkPort, timeoutSeconds: 60 });
    const call = await place([{ say: { text: intro } }, { agent: { agent_id: agentId } }, { say: { text: 'never said' } }], { record: true });
    const isScored = (e: ReceivedEvent) => e.type === 'ai.conversation.scored' && e.data.object.call_id === call.id;
    const isCompleted = (e: ReceivedEvent) => e.type === 'call.completed' && e.data.object.id === call.id;
    const events = await lv.receiver.waitFor((evs) => evs.some(isScored) && evs.some(isCompleted), 90_000);
    await sippOk(sipp);

    const conversation = (await live().get(`/v1/ai/conversations/${events.find(isScored)!.data.object.id}`)).body;
    const transcript = conversation.transcript as Array<{ speaker: string; text: string; at: number; action: string | null; citations: string[] }>;
    assert.equal(conversation.agent_id, agentId);
    assert.equal(conversation.call_id, call.id);
    assert.deepEqual(transcript.map((turn) => [turn.speaker, turn.action]), [
      ['agent', 'greet'], ['caller', null], ['agent', 'answer'], ['caller', null], ['agent', 'end'],
    ], JSON.stringify(transcript));
    assert.equal(transcript[0]!.text, fixture.agent.greeting);
    assert.equal(transcript[1]!.text, QUESTION);
    assert.match(transcript[2]!.text, /10:00 a\.m\. to 7:00 p\.m\./);
    assert.ok(transcript[2]!.citations.length > 0, 'the answer cites the documents');
    assert.equal(transcript[3]!.text, GOODBYE);
    assert.equal(conversation.outcome, 'resolved');

    const got = (await live().get(`/v1/calls/${call.id}`)).body;
    assert.deepEqual([got.direction, got.status, got.hangup_source], ['outbound', 'completed', 'caller'], 'we hung up after goodbye');
    const flow = (await live().get(`/v1/calls/${call.id}/flow`)).body;
    assert.deepEqual(flow.log.map((e: { verb: string; result: unknown }) => [e.verb, e.result]), [
      ['say', { reason: 'finished' }], ['agent', { agent_id: agentId, conversation_id: conversation.id }],
    ], 'the rest of the flow does not run');

    // What the agent heard is SIPp's real audio.
    const upload = api.requests.find((r) => r.path === '/v1/audio/transcriptions' && r.heard === QUESTION);
    assert.ok(upload, 'the question reached speech-to-text');
    const heard = matchAudio(onTheLine(clips.get(QUESTION)!), upload.audio!, 16_000);
    assert.ok(heard.correlation > 0.9, `uploaded audio vs what SIPp said: correlation ${heard.correlation}`);

    // What SIPp heard is the agent's voice: channel 0 of the call's recording is what we sent
    // (we are the caller), and each of the agent's turns is in it, whole, from its own time on.
    const [sent] = (await lv.recordingOf(call.id)).samples;
    for (const turn of [transcript[0]!, transcript[2]!, transcript[4]!]) {
      const voice = onTheLine(toLineRate(fakeSpeechBySentence(turn.text), FAKE_TTS_RATE));
      const match = matchAudio(voice, sent!.subarray(Math.max(0, Math.floor((turn.at - 1) * RATE))), 5 * RATE);
      assert.ok(match.correlation > 0.9, `the agent said "${turn.text.slice(0, 40)}...": correlation ${match.correlation}`);
    }

    const types = lv.receiver.events().filter(ofCall(call.id)).map((e) => e.type);
    for (const type of ['call.answered', 'call.completed', 'ai.conversation.started', 'ai.conversation.completed', 'ai.conversation.scored']) {
      assert.ok(types.includes(type), `${type} reached the webhook receiver (got ${types.join(', ')})`);
    }
  });
});

describe('issue 13: the record verb with transcribe on an outbound live call', { skip: !hasSipp }, () => {
  test('it records the callee until silence: a flow recording whose transcript (timed words from the endpoint) is read through the API, with its events at the receiver; the flow goes on', async () => {
    // The beep is half a second; the callee starts 1 s after SIPp's ACK-plus-pause, well inside
    // the silence timeout (silence before the first word counts too, as in the sandbox).
    const sipp = await runSipp({ scenario: speakingTrunk([[1, MESSAGE]], 16), port: trunkPort, timeoutSeconds: 60 });
    const uploadsBefore = api.requests.filter((r) => r.path === '/v1/audio/transcriptions').length;
    const call = await place([{ record: { silence_timeout: 3, transcribe: true } }, { say: { text: 'Thank you. Goodbye.' } }]);
    await lv.receiver.waitFor((evs) => evs.some((e) => e.type === 'call.completed' && e.data.object.id === call.id), 60_000);
    await sippOk(sipp);

    const log = (await live().get(`/v1/calls/${call.id}/flow`)).body.log as Array<{ verb: string; result: { reason: string; recording_id: string; duration_seconds: number } }>;
    assert.deepEqual(log.map((e) => [e.verb, e.result.reason]), [['record', 'silence'], ['say', 'finished']]);
    const { recording_id: recordingId, duration_seconds: duration } = log[0]!.result;
    const message = clips.get(MESSAGE)!.length / RATE;
    // From the beep's end to the message's end and three seconds of silence.
    assert.ok(duration >= message + 3 - 0.1 && duration < message + 3 + 3, `record lasted ${duration} s for ${message} s of speech`);

    const isReady = (e: ReceivedEvent) => e.type === 'call.recording.ready' && e.data.object.id === recordingId;
    await lv.receiver.waitFor((evs) => evs.some(isReady), 30_000);
    const recording = (await live().get(`/v1/recordings/${recordingId}`)).body;
    assert.deepEqual([recording.call_id, recording.source, recording.channels, recording.status], [call.id, 'flow', 1, 'ready']);
    const segments = recording.transcript.segments as Array<{ channel: number; speaker: string; text: string; words: Array<{ text: string; start: number; end: number }> }>;
    assert.deepEqual(segments.map((s) => [s.channel, s.speaker, s.text]), [[0, 'callee', MESSAGE]], JSON.stringify(recording.transcript));
    assert.deepEqual((await live().get(`/v1/calls/${call.id}/recordings`)).body.data.map((r: { id: string }) => r.id), [recordingId]);
    const types = lv.receiver.events().filter((e) => e.data.object.id === recordingId).map((e) => e.type);
    assert.deepEqual([...new Set(types)], ['call.recording.started', 'call.recording.stopped', 'call.recording.processing', 'call.recording.ready']);
    const ready = lv.receiver.events().find(isReady)!.data.object;
    assert.equal(ready.transcript.segments[0].text, MESSAGE, 'call.recording.ready carries the transcript');

    // The recording is SIPp's real audio, the upload was that audio, and each word sits where it is loud.
    const media = await fetch(`${lv.t.url}/v1/recordings/${recordingId}/media`, { headers: { authorization: `Bearer ${lv.acct.keys.live}` } });
    const wav = decodeWav(Buffer.from(await media.arrayBuffer()));
    assert.equal(wav.channels, 1);
    assert.ok(Math.abs(wav.samples[0]!.length / RATE - duration) < 0.1, `the audio (${wav.samples[0]!.length / RATE} s) is as long as the record (${duration} s)`);
    const said = matchAudio(onTheLine(clips.get(MESSAGE)!), wav.samples[0]!, 5 * RATE);
    assert.ok(said.correlation > 0.99, `recording vs what SIPp said: correlation ${said.correlation}`);
    const uploads = api.requests.filter((r) => r.path === '/v1/audio/transcriptions').slice(uploadsBefore);
    assert.equal(uploads.length, 1, 'one upload: the callee\'s side of the recording');
    assert.equal(uploads[0]!.fields['timestamp_granularities[]'], 'word,segment');
    const rms = (at: number) => {
      const from = Math.max(0, Math.round(at * RATE) - 80);
      let sum = 0;
      for (let i = from; i < from + 160; i++) sum += (wav.samples[0]![i] ?? 0) ** 2;
      return Math.sqrt(sum / 160);
    };
    // The endpoint's words span the voiced audio (the fake spreads them over it): the first
    // starts where the recording's audio first gets loud, the last ends where it last is.
    const loud: number[] = [];
    for (let at = 0.01; at < duration; at += 0.02) if (rms(at) > 500) loud.push(at);
    const words = segments[0]!.words;
    assert.equal(words.length, MESSAGE.split(' ').length);
    assert.ok(Math.abs(words[0]!.start - loud[0]!) < 0.1, `first word at ${words[0]!.start} s, audio loud from ${loud[0]} s`);
    assert.ok(Math.abs(words.at(-1)!.end - loud.at(-1)!) < 0.1, `last word ends ${words.at(-1)!.end} s, audio loud until ${loud.at(-1)} s`);
    assert.ok(words.every((w, i) => w.start < w.end && (i === 0 || w.start >= words[i - 1]!.end - 0.001)), 'words in order');
    assert.ok(rms(duration - 1) < 50, 'the last second (the silence that ended it) is quiet');
  });
});
