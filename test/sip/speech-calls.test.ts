// Speech on live calls with OpenAI-compatible endpoints configured (the carriers file's
// `speech` section), against SIPp as the trunk and a local server implementing OpenAI's audio
// API shapes (test/helpers/openai-audio.ts, which "recognises" by a documented rule over the
// real audio it is sent). The recordings are the real audio of the call.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer, type CreatedAccount } from '../helpers/server.ts';
import type { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { subscribedReceiver, waitForTypes } from '../voice/voice-helpers.ts';
import { freeUdpPort, peerAvailable, runSipp, SCENARIOS, type SippRun } from '../helpers/sipp.ts';
import { matchAudio } from '../helpers/audio-match.ts';
import { writeRtpPcap } from '../helpers/pcap.ts';
import { startFakeOpenAiAudio, fakeSpeech, FAKE_TTS_RATE, type FakeOpenAiAudio } from '../helpers/openai-audio.ts';
import { decodeWav } from '../../src/media/wav.ts';
import { decodeG711, encodeG711 } from '../../src/carriers/rtp/g711.ts';
import { toLineRate } from '../../src/carriers/speech/pcm.ts';
import { EmbeddedTextToSpeech } from '../../src/carriers/speech/text-to-speech.ts';

const hasSipp = peerAvailable('sipp');
const FROM = '+14155550142';
const TO = '+14155550199';
const KEY = 'sk-test-speech';

let t: TestServer;
let acct: CreatedAccount;
let receiver: WebhookReceiver;
let trunkPort: number;
let carriersFile: string;
let api: FakeOpenAiAudio;

function cli(...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const env: Record<string, string | undefined> = { ...process.env, SWITCHBOARD_DATA_DIR: t.store.dataDir, SWITCHBOARD_CARRIERS_FILE: carriersFile };
  if (t.store.databaseUrl) env.DATABASE_URL = t.store.databaseUrl;
  else delete env.DATABASE_URL;
  const child = spawn(process.execPath, ['bin/switchboard.js', ...args], { env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => { stdout += d; });
  child.stderr.on('data', (d) => { stderr += d; });
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })));
}

before(async () => {
  if (!hasSipp) return;
  api = await startFakeOpenAiAudio(KEY);
  trunkPort = await freeUdpPort();
  const sipPort = await freeUdpPort();
  process.env.TEST_SPEECH_KEY = KEY;
  carriersFile = join(mkdtempSync(join(tmpdir(), 'sb-speech-')), 'carriers.yaml');
  writeFileSync(carriersFile, [
    'sip:',
    `  listen: { host: 127.0.0.1, udp_port: ${sipPort} }`,
    '  public_host: 127.0.0.1',
    '  rtp: { port_min: 47000, port_max: 47998 }',
    '  trunks:',
    `    - { name: sipp, host: 127.0.0.1, port: ${trunkPort}, codecs: [PCMU] }`,
    'speech:',
    `  tts: { base_url: "${api.baseUrl}", api_key: "env:TEST_SPEECH_KEY", model: tts-1-hd, voice: nova }`,
    `  stt: { base_url: "${api.baseUrl}", api_key: "env:TEST_SPEECH_KEY", model: whisper-1 }`,
    '',
  ].join('\n'));
  t = await startTestServer({ SWITCHBOARD_CARRIERS_FILE: carriersFile });
  acct = await t.createAccount('growth');
  const imported = await cli('numbers', 'import', '--account', acct.account.id, '--number', FROM, '--trunk', 'sipp', '--json');
  assert.equal(imported.status, 0, imported.stderr);
  receiver = await subscribedReceiver(t, acct.keys.live);
});

after(async () => {
  await receiver?.close();
  await t?.close();
  await api?.close();
});

const live = () => t.as(acct.keys.live);

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
  const ofCall = (e: { type: string; data: { object: { call_id?: string } } }) => e.type === 'call.recording.ready' && e.data.object.call_id === callId;
  const ready = (await receiver.waitFor((evs) => evs.some(ofCall), 30_000)).find(ofCall)!;
  const media = await fetch(`${t.url}/v1/recordings/${ready.data.object.id}/media`, { headers: { authorization: `Bearer ${acct.keys.live}` } });
  return decodeWav(Buffer.from(await media.arrayBuffer())).samples;
}

/** What a prompt sounds like after the line's µ-law. */
const onTheLine = (pcm: Int16Array) => decodeG711('PCMU', encodeG711('PCMU', pcm));

describe('text-to-speech from an OpenAI-compatible endpoint on live calls', { skip: !hasSipp }, () => {
  test('say is spoken by the endpoint; a voice it refuses is retried with the configured one; when it fails, eSpeak NG speaks instead', async () => {
    const sipp = await runSipp({ scenario: 'uas-answer-echo.xml', port: trunkPort, args: ['-rtp_echo'] });
    const [first, refused, failing] = ['Your order has shipped.', 'Thank you for waiting.', 'Goodbye for now.'];
    api.failSpeech.add(failing);
    const call = await place({ record: true, flow: [{ say: { text: first } }, { say: { text: refused, voice: 'shimmer' } }, { say: { text: failing } }] });
    await waitForTypes(receiver, call.id, ['call.queued', 'call.ringing', 'call.answered', 'call.completed'], 60_000);
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
    await receiver.waitFor((evs) => evs.some(completed) && evs.some(isGather), 60_000);
    await sippOk(sipp);
    const gathered = receiver.events().filter((e) => e.type === 'call.gather.completed' && e.data.object.call_id === call.id);
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
