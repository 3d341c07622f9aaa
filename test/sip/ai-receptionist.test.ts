// Issue 13, the AI receptionist on live calls: real callers (baresip, its own SIP stack and
// jitter buffer; SIPp as a carrier that also takes a REFER) call a live number whose AI agent
// answers. The callers speak lines synthesised by flite; speech endpoints are the local server
// implementing OpenAI's audio API shapes (test/helpers/openai-audio.ts: its "speech" is a tone
// per character, so what the caller hears can be matched against it; it "recognises" the
// real audio it is sent against the flite clips the test teaches it). Asserted: the
// conversation's turns, the agent's spoken replies reaching the caller, the transfer over SIP,
// the hang-up after goodbye, and the events at a real webhook receiver.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestServer, CreatedAccount } from '../helpers/server.ts';
import type { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { subscribeAll } from '../helpers/subscribe.ts';
import { freeUdpPort, peerAvailable, runSipp, SCENARIOS } from '../helpers/sipp.ts';
import { startBaresip } from '../helpers/baresip.ts';
import { matchAudio } from '../helpers/audio-match.ts';
import { writeRtpPcap } from '../helpers/pcap.ts';
import { fixture } from '../helpers/ai.ts';
import { spoken, startLiveReceptionist, type LiveReceptionist } from '../helpers/live-receptionist.ts';
import { fakeSpeechBySentence, FAKE_TTS_RATE, type FakeOpenAiAudio } from '../helpers/openai-audio.ts';
import { encodeWav } from '../../src/media/wav.ts';
import { decodeG711, encodeG711 } from '../../src/carriers/rtp/g711.ts';
import { toLineRate } from '../../src/media/resample.ts';

const hasPeers = peerAvailable('sipp') && peerAvailable('baresip') && peerAvailable('flite');
const NUMBER = '+14155550142';
const RATE = 8000;
const QUESTION = 'What are your hours on Wednesday?';
const GOODBYE = 'Great, thanks so much. Goodbye.';
const PERSON = 'Can I talk to a real person please?';

let t: TestServer;
let acct: CreatedAccount;
let receiver: WebhookReceiver;
let api: FakeOpenAiAudio;
let sipPort: number;
let setup: LiveReceptionist;
let agentId: string;
const clips = new Map<string, Int16Array>();

/** What audio sounds like after the line's µ-law. */
const onTheLine = (pcm: Int16Array) => decodeG711('PCMU', encodeG711('PCMU', pcm));

/** The webhook that says call `callId` has ended and the server has recorded it. */
const completed = (callId: string) => (e: { type: string; data: { object: { id?: string } } }) => e.type === 'call.completed' && e.data.object.id === callId;

/** The agent's words as the fake endpoint speaks them, on the line (sentence by sentence, the first 80 characters of each). */
const agentVoice = (text: string) => onTheLine(toLineRate(fakeSpeechBySentence(text), FAKE_TTS_RATE));

/** The caller's side: each line starts at its second from the answer, quiet around them, `total` seconds long. */
function script(lines: Array<[number, string]>, total: number): Int16Array {
  const out = new Int16Array(total * RATE);
  for (const [at, text] of lines) out.set(clips.get(text)!, at * RATE);
  return out;
}

before(async () => {
  if (!hasPeers) return;
  setup = await startLiveReceptionist({ number: NUMBER, key: 'sk-test-ai-live', rtp: [45000, 45998], transfer: 'refer' });
  ({ t, acct, speech: api, sipPort, agentId } = setup);
  for (const line of [QUESTION, GOODBYE, PERSON]) {
    clips.set(line, spoken(line));
    api.teach(line, onTheLine(clips.get(line)!));
  }
  receiver = await subscribeAll(t, acct.keys.live);
});

after(async () => {
  await receiver?.close();
  await setup?.close();
});

const live = () => t.as(acct.keys.live);

interface Turn { speaker: string; text: string; at: number; action: string | null; citations: string[] }

/** Waits for the scored conversation of the next inbound call and returns it with its call. */
async function conversationOfCall(known: Set<string>) {
  const scored = (e: { type: string; data: { object: { id?: string } } }) => e.type === 'ai.conversation.scored' && !known.has(e.data.object.id ?? '');
  const event = (await receiver.waitFor((evs) => evs.some(scored), 90_000)).find(scored)!;
  const conversation = (await live().get(`/v1/ai/conversations/${event.data.object.id}`)).body;
  known.add(conversation.id);
  const call = (await live().get(`/v1/calls/${conversation.call_id}`)).body;
  return { conversation, call, transcript: conversation.transcript as Turn[] };
}

const seen = new Set<string>();

describe('issue 13: the AI receptionist answers live SIP calls', { skip: !hasPeers }, () => {
  test('baresip calls the agent: it hears the greeting and the answer, its question reaches speech-to-text, and goodbye hangs up', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-caller-'));
    const speaks = join(dir, 'caller.wav');
    writeFileSync(speaks, encodeWav({ sampleRate: RATE, channels: 1, samples: [script([[7, QUESTION], [17, GOODBYE]], 34)] }));
    const caller = await startBaresip({
      host: '127.0.0.3', user: '+15557770001', port: await freeUdpPort(), speaks, rtpPorts: { min: 46400, max: 46498 },
      dial: `sip:${NUMBER}@127.0.0.1:${sipPort}`,
    });
    let result: Awaited<ReturnType<typeof conversationOfCall>>;
    try {
      result = await conversationOfCall(seen);
      await receiver.waitFor((evs) => evs.some(completed(result.call.id)), 30_000);
      // baresip writes what it heard when its call ends.
      await new Promise((resolve) => setTimeout(resolve, 500));
    } finally {
      await caller.stop();
    }
    const { conversation, transcript } = result;
    const call = (await live().get(`/v1/calls/${conversation.call_id}`)).body;
    assert.equal(call.direction, 'inbound');
    assert.equal(call.from, '+15557770001');
    assert.equal(call.to, NUMBER);
    assert.equal(call.status, 'completed');
    assert.equal(call.hangup_source, 'callee', 'the agent hung up after goodbye');
    assert.equal(conversation.agent_id, agentId);
    assert.equal(conversation.status, 'completed');
    assert.equal(conversation.outcome, 'resolved');
    assert.deepEqual(transcript.map((turn) => [turn.speaker, turn.action]), [
      ['agent', 'greet'], ['caller', null], ['agent', 'answer'], ['caller', null], ['agent', 'end'],
    ], JSON.stringify(transcript));
    assert.equal(transcript[0]!.text, fixture.agent.greeting);
    assert.equal(transcript[1]!.text, QUESTION);
    assert.match(transcript[2]!.text, /10:00 a\.m\. to 7:00 p\.m\./);
    assert.ok(transcript[2]!.citations.length > 0, 'the answer cites the knowledge');
    assert.equal(transcript[3]!.text, GOODBYE);
    // Real talk seconds: the question was said about 7 s after the answer, the goodbye about 17 s.
    assert.ok(transcript[1]!.at > 5 && transcript[1]!.at < 9, `question at ${transcript[1]!.at}`);
    assert.ok(transcript[3]!.at > 15 && transcript[3]!.at < 19, `goodbye at ${transcript[3]!.at}`);
    assert.ok(conversation.score.overall >= 0);

    // What the agent heard is the caller's real audio.
    const uploads = api.requests.filter((r) => r.path === '/v1/audio/transcriptions' && r.heard === QUESTION);
    assert.ok(uploads.length > 0, 'the question reached speech-to-text');
    const heardQuestion = matchAudio(onTheLine(clips.get(QUESTION)!), uploads[0]!.audio!, 16_000);
    assert.ok(heardQuestion.correlation > 0.9, `uploaded audio vs what baresip said: correlation ${heardQuestion.correlation}`);

    // What the caller heard is the agent's voice: the greeting, the answer and the goodbye, each
    // whole, each looked for from its own time on (the goodbye starts with the greeting's words).
    const heard = caller.heard();
    for (const turn of [transcript[0]!, transcript[2]!, transcript[4]!]) {
      const match = matchAudio(agentVoice(turn.text), heard.subarray(Math.max(0, Math.floor((turn.at - 1) * RATE))), 5 * RATE);
      assert.ok(match.correlation > 0.9, `baresip heard "${turn.text.slice(0, 40)}...": correlation ${match.correlation} (its recording is in ${caller.dir})`);
    }

    const types = receiver.events().filter((e) => [conversation.id, call.id].includes(e.data.object.id) || e.data.object.call_id === call.id).map((e) => e.type);
    for (const type of ['call.ringing', 'call.answered', 'call.completed', 'ai.conversation.started', 'ai.conversation.completed', 'ai.conversation.scored']) {
      assert.ok(types.includes(type), `${type} reached the webhook receiver (got ${types.join(', ')})`);
    }
  });

  test('a caller asks for a person: the agent says so, then transfers the call by REFER to its transfer number; the conversation ends transferred', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-refer-'));
    const line = encodeG711('PCMU', script([[7, PERSON]], 20));
    const payloads: Uint8Array[] = [];
    for (let at = 0; at + 160 <= line.length; at += 160) payloads.push(line.subarray(at, at + 160));
    writeRtpPcap(join(dir, 'caller.pcap'), payloads);
    const scenario = join(dir, 'uac-inbound-refer.xml');
    writeFileSync(scenario, readFileSync(join(SCENARIOS, 'uac-inbound-refer.xml.tpl'), 'utf8')
      .replace('PCAP_PATH', join(dir, 'caller.pcap'))
      .replace('TARGET', fixture.agent.transferNumber.replace('+', '\\+')));
    const sipp = await runSipp({ scenario, remote: `127.0.0.1:${sipPort}`, args: ['-s', NUMBER], timeoutSeconds: 60 });
    const { conversation, transcript } = await conversationOfCall(seen);
    const result = await sipp.done;
    assert.equal(result.code, 0, result.errors);
    assert.deepEqual(transcript.map((turn) => [turn.speaker, turn.action]), [['agent', 'greet'], ['caller', null], ['agent', 'transfer']], JSON.stringify(transcript));
    assert.equal(transcript[1]!.text, PERSON);
    assert.equal(conversation.outcome, 'transferred');
    // SIPp ends as soon as it has answered our BYE, which can be before the server has recorded the call's end.
    await receiver.waitFor((evs) => evs.some(completed(conversation.call_id)), 30_000);
    const call = (await live().get(`/v1/calls/${conversation.call_id}`)).body;
    assert.equal(call.status, 'completed');
    assert.deepEqual(call.transfers.map((x: { to: string; status: string }) => [x.to, x.status]), [[fixture.agent.transferNumber, 'completed']]);
    const types = receiver.events().filter((e) => e.data.object.id === call.id || e.data.object.call_id === call.id).map((e) => e.type);
    assert.ok(types.includes('call.transferred'), `call.transferred (got ${types.join(', ')})`);
  });
});
