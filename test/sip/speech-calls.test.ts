// Speech on live calls with OpenAI-compatible endpoints configured (the carriers file's
// `speech` section), against SIPp as the trunk and a local server implementing OpenAI's audio
// API shapes (test/helpers/openai-audio.ts, which "recognises" by a documented rule over the
// real audio it is sent). The recordings are the real audio of the call.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitForTypes } from '../voice/voice-helpers.ts';
import { freeUdpPort, peerAvailable, runSipp, SCENARIOS, type SippRun } from '../helpers/sipp.ts';
import { startLiveVoice, type LiveVoice } from '../helpers/live-voice.ts';
import { matchAudio } from '../helpers/audio-match.ts';
import { writeRtpPcap } from '../helpers/pcap.ts';
import { startFakeOpenAiAudio, speechSection, fakeSpeech, FAKE_TTS_RATE, type FakeOpenAiAudio } from '../helpers/openai-audio.ts';
import { decodeWav } from '../../src/media/wav.ts';
import { decodeG711, encodeG711 } from '../../src/carriers/rtp/g711.ts';
import { toLineRate } from '../../src/media/resample.ts';
import { EmbeddedTextToSpeech } from '../../src/carriers/speech/text-to-speech.ts';

const hasSipp = peerAvailable('sipp');
const FROM = '+14155550142';
const TO = '+14155550199';
const KEY = 'sk-test-speech';

let lv: LiveVoice;
let trunkPort: number;
let api: FakeOpenAiAudio;

before(async () => {
  if (!hasSipp) return;
  api = await startFakeOpenAiAudio(KEY);
  trunkPort = await freeUdpPort();
  process.env.TEST_SPEECH_KEY = KEY;
  lv = await startLiveVoice({
    rtp: [47000, 47998],
    trunks: [`{ name: sipp, host: 127.0.0.1, port: ${trunkPort}, codecs: [PCMU] }`],
    sections: speechSection(api, 'TEST_SPEECH_KEY', 'tts-1-hd'),
    numbers: { [FROM]: 'sipp' },
  });
});

after(async () => {
  await lv?.close();
  await api?.close();
});

const live = () => lv.live();

async function place(body: Record<string, unknown>) {
  const res = await live().post('/v1/calls', { from: FROM, to: TO, ...body });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as { id: string };
}

async function sippOk(sipp: SippRun) {
  const result = await sipp.done;
  assert.equal(result.code, 0, result.errors);
}

async function recordingOf(callId: string): Promise<Int16Array[]> {
  return (await lv.recordingOf(callId)).samples;
}

/** What a prompt sounds like after the line's µ-law. */
const onTheLine = (pcm: Int16Array) => decodeG711('PCMU', encodeG711('PCMU', pcm));

describe('text-to-speech from an OpenAI-compatible endpoint on live calls', { skip: !hasSipp }, () => {
  test('say is spoken by the endpoint; a voice it refuses is retried with the configured one; when it fails, eSpeak NG speaks instead', async () => {
    const sipp = await runSipp({ scenario: 'uas-answer-echo.xml', port: trunkPort, args: ['-rtp_echo'] });
    const [first, refused, failing] = ['Your order has shipped.', 'Thank you for waiting.', 'Goodbye for now.'];
    api.failSpeech.add(failing);
    const call = await place({ record: true, flow: [{ say: { text: first } }, { say: { text: refused, voice: 'shimmer' } }, { say: { text: failing } }] });
    await waitForTypes(lv.receiver, call.id, ['call.queued', 'call.ringing', 'call.answered', 'call.completed'], 60_000);
    await sippOk(sipp);
    const flow = await live().get(`/v1/calls/${call.id}/flow`);
    assert.deepEqual(flow.body.log.map((e: { verb: string; result: { reason: string } }) => [e.verb, e.result.reason]), [['say', 'finished'], ['say', 'finished'], ['say', 'finished']]);

    const speech = api.requests.filter((r) => r.path === '/v1/audio/speech');
    assert.deepEqual(speech.map((r) => [r.fields.input, r.fields.voice, r.fields.model, r.fields.response_format]), [
      [first, 'nova', 'tts-1-hd', 'wav'],
      [refused, 'shimmer', 'tts-1-hd', 'wav'],
      [refused, 'nova', 'tts-1-hd', 'wav'],
      [failing, 'nova', 'tts-1-hd', 'wav'],
    ]);
    assert.ok(speech.every((r) => r.authorization === `Bearer ${KEY}`));

    // Channel 0 is what we sent (we are the caller): each prompt is in it, whole.
    const [sent] = await recordingOf(call.id);
    for (const text of [first, refused]) {
      const match = matchAudio(onTheLine(toLineRate(fakeSpeech(text), FAKE_TTS_RATE)), sent!, 80_000);
      assert.ok(match.correlation > 0.99, `"${text}" from the endpoint: correlation ${match.correlation}`);
    }
    const tts = new EmbeddedTextToSpeech();
    const espeak = await tts.synthesize(failing, { language: 'en-US' });
    await tts.close();
    const fallback = matchAudio(onTheLine(espeak), sent!, 120_000);
    assert.ok(fallback.correlation > 0.99, `"${failing}" by eSpeak NG after the endpoint failed: correlation ${fallback.correlation}`);
  });
});

describe('the speaker of a live transcript', { skip: !hasSipp }, () => {
  test('what the flow says on an outbound call is the caller\'s, on channel 0: the same speaker the sandbox gives (test/voice/flow-recording.test.ts)', async () => {
    const text = 'Your parcel leaves the depot today.';
    api.teach(text, onTheLine(toLineRate(fakeSpeech(text), FAKE_TTS_RATE)));
    // The trunk answers and stays quiet (no echo): only our side has voice.
    const sipp = await runSipp({ scenario: 'uas-answer-echo.xml', port: trunkPort });
    const call = await place({ record: true, flow: [{ say: { text } }, { pause: { seconds: 1 } }] });
    await lv.receiver.waitFor((evs) => evs.some((e) => e.type === 'call.completed' && e.data.object.id === call.id), 60_000);
    await sippOk(sipp);
    const [{ id: recordingId }] = (await live().get(`/v1/calls/${call.id}/recordings`)).body.data;
    await lv.receiver.waitFor((evs) => evs.some((e) => e.type === 'call.recording.ready' && e.data.object.id === recordingId), 30_000);
    const recording = (await live().get(`/v1/recordings/${recordingId}`)).body;
    const segments = recording.transcript.segments as Array<{ channel: number; speaker: string; text: string }>;
    assert.deepEqual(segments.map((s) => [s.channel, s.speaker, s.text]), [[0, 'caller', text]], JSON.stringify(recording.transcript));
  });
});

/** A SIPp scenario that answers and then speaks `pcm` (8 kHz) as µ-law RTP, with quiet around it. */
function speakingTrunk(pcm: Int16Array): string {
  const dir = mkdtempSync(join(tmpdir(), 'sb-speak-'));
  const line = encodeG711('PCMU', Int16Array.from([...new Int16Array(2400), ...pcm, ...new Int16Array(24000)]));
  const payloads: Uint8Array[] = [];
  for (let at = 0; at + 160 <= line.length; at += 160) payloads.push(line.subarray(at, at + 160));
  writeRtpPcap(join(dir, 'speech.pcap'), payloads);
  const scenario = join(dir, 'uas-answer-speak.xml');
  writeFileSync(scenario, readFileSync(join(SCENARIOS, 'uas-answer-speak.xml.tpl'), 'utf8').replace('PCAP_PATH', join(dir, 'speech.pcap')));
  return scenario;
}

describe('speech gather on live calls (speech-to-text endpoint)', { skip: !hasSipp }, () => {
  test('the caller says a sentence: the utterance ends by silence, its real audio goes to the endpoint, and the words reach call.gather.completed and the flow', async () => {
    const sentence = 'I would like to talk about my bill';
    const tts = new EmbeddedTextToSpeech();
    const spoken = await tts.synthesize(sentence, { language: 'en-US' });
    await tts.close();
    api.teach(sentence, onTheLine(spoken));
    api.teach('please cancel my order today', onTheLine(toLineRate(fakeSpeech('please cancel my order today'), FAKE_TTS_RATE)));
    const sipp = await runSipp({ scenario: speakingTrunk(spoken), port: trunkPort });
    const call = await place({ flow: [{ gather: { input: ['speech'], speech_timeout: 1, timeout: 10, hints: ['billing', 'orders'] } }] });
    const completed = (e: { type: string; data: { object: { id?: string } } }) => e.type === 'call.completed' && e.data.object.id === call.id;
    const isGather = (e: { type: string; data: { object: { call_id?: string } } }) => e.type === 'call.gather.completed' && e.data.object.call_id === call.id;
    // Deliveries are concurrent: the gather's event may arrive after the call's end.
    await lv.receiver.waitFor((evs) => evs.some(completed) && evs.some(isGather), 60_000);
    await sippOk(sipp);
    const gathered = lv.receiver.events().filter((e) => e.type === 'call.gather.completed' && e.data.object.call_id === call.id);
    assert.equal(gathered.length > 0 && new Set(gathered.map((e) => e.id)).size, 1, 'one call.gather.completed');
    const gather = gathered[0]!.data.object;
    assert.equal(gather.reason, 'speech');
    assert.equal(gather.speech, sentence);
    assert.ok(gather.confidence > 0.8 && gather.confidence <= 1, `confidence ${gather.confidence}`);
    const flow = await live().get(`/v1/calls/${call.id}/flow`);
    assert.deepEqual(flow.body.log.map((e: { verb: string; result: { reason: string; speech: string } }) => [e.verb, e.result.reason, e.result.speech]), [['gather', 'speech', sentence]]);

    const [upload] = api.requests.filter((r) => r.path === '/v1/audio/transcriptions').slice(-1);
    assert.equal(upload!.fields.model, 'whisper-1');
    assert.equal(upload!.fields.response_format, 'verbose_json');
    assert.equal(upload!.fields['timestamp_granularities[]'], 'word,segment');
    assert.equal(upload!.fields.prompt, 'billing, orders', 'the hints steer the recogniser');
    // What was uploaded is the caller's real audio: the sentence, whole, and not much more.
    const heard = matchAudio(onTheLine(spoken), upload!.audio!, 16_000);
    assert.ok(heard.correlation > 0.95, `uploaded audio vs what SIPp said: correlation ${heard.correlation}`);
    const seconds = upload!.audio!.length / 8000;
    assert.ok(seconds >= spoken.length / 8000 && seconds < spoken.length / 8000 + 2, `uploaded ${seconds} s for ${spoken.length / 8000} s of speech`);
  });
});

describe('issue 13: live recording transcripts (speech-to-text endpoint)', { skip: !hasSipp }, () => {
  test('a recorded call gets its transcript from the endpoint: timed words on the speaker\'s channel, where the audio is; redaction masks them and silences that audio', async () => {
    const sentence = 'my card number is 4111 1111 1111 1111';
    const tts = new EmbeddedTextToSpeech();
    const spoken = await tts.synthesize(sentence, { language: 'en-US' });
    await tts.close();
    api.teach(sentence, onTheLine(spoken));
    const uploadsBefore = api.requests.filter((r) => r.path === '/v1/audio/transcriptions').length;
    const sipp = await runSipp({ scenario: speakingTrunk(spoken), port: trunkPort });
    // We stay quiet while the trunk speaks (0.6 s after the answer, for spoken.length), then hang up.
    const call = await place({ record: true, flow: [{ pause: { seconds: Math.ceil(spoken.length / 8000) + 3 } }] });
    const [caller, callee] = await recordingOf(call.id);
    await sippOk(sipp);
    const recording = (await live().get(`/v1/calls/${call.id}/recordings`)).body.data[0];
    const segments = recording.transcript.segments as Array<{ channel: number; speaker: string; text: string; start: number; end: number; words: Array<{ text: string; start: number; end: number }> }>;
    assert.deepEqual(segments.map((s) => [s.channel, s.speaker, s.text]), [[1, 'callee', sentence]], JSON.stringify(recording.transcript));
    // Only the side with voice went to the endpoint (we said nothing).
    assert.equal(api.requests.filter((r) => r.path === '/v1/audio/transcriptions').length - uploadsBefore, 1);
    // Each word sits where the callee's audio is loud, and nothing is on the caller's channel.
    const rms = (pcm: Int16Array, at: number) => {
      const from = Math.max(0, Math.round(at * 8000) - 400);
      let sum = 0;
      for (let i = from; i < from + 800; i++) sum += (pcm[i] ?? 0) ** 2;
      return Math.sqrt(sum / 800);
    };
    for (const word of segments[0]!.words) {
      const middle = (word.start + word.end) / 2;
      assert.ok(rms(callee!, middle) > 300, `"${word.text}" at ${middle} s: callee RMS ${rms(callee!, middle)}`);
      assert.ok(rms(caller!, middle) < 50, `"${word.text}" at ${middle} s: caller RMS ${rms(caller!, middle)}`);
    }

    const redacted = await live().post(`/v1/recordings/${recording.id}/redact`, { types: ['credit_card'] });
    assert.equal(redacted.status, 200, JSON.stringify(redacted.body));
    assert.equal(redacted.body.redacted, true);
    assert.match(redacted.body.transcript.segments[0].text, /^my card number is \[REDACTED CREDIT_CARD\]$/);
    const card = redacted.body.redactions.find((r: { type: string }) => r.type === 'credit_card');
    assert.ok(card, JSON.stringify(redacted.body.redactions));
    const media = await fetch(`${lv.t.url}/v1/recordings/${recording.id}/media`, { headers: { authorization: `Bearer ${lv.acct.keys.live}` } });
    const after = decodeWav(Buffer.from(await media.arrayBuffer())).samples[1]!;
    const digits = segments[0]!.words.filter((w) => /^\d+$/.test(w.text));
    for (const word of digits) assert.equal(rms(after, (word.start + word.end) / 2), 0, `"${word.text}" is silenced`);
    const said = segments[0]!.words[0]!;
    assert.ok(rms(after, (said.start + said.end) / 2) > 300, 'the words that are not PII keep their audio');
  });
});
