// Issue 29, when a live caller has finished: the agent judges the words recognised at each
// pause (src/telephony/end-of-utterance.ts) instead of a fixed silence. A SIPp caller (RTP from
// a pcap) says a question with a long mid-sentence pause after "Could you tell me" (longer than
// the fixed 1.1 s of quiet that used to end a line), then a complete goodbye. The speech
// endpoints are the local server implementing OpenAI's audio API shapes
// (test/helpers/openai-audio.ts): it is no recogniser, it matches the real audio it is sent
// against the flite clips this test teaches it (the first words alone, the whole paused line,
// the goodbye). Asserted: the caller's line reaches the agent whole (not cut at the pause), is
// answered, and the complete goodbye ends the call. No durations are asserted.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { peerAvailable, runSipp, SCENARIOS } from '../helpers/sipp.ts';
import { writeRtpPcap } from '../helpers/pcap.ts';
import { spoken as flite, startLiveReceptionist, type LiveReceptionist } from '../helpers/live-receptionist.ts';
import { decodeG711, encodeG711 } from '../../src/carriers/rtp/g711.ts';

const hasPeers = peerAvailable('sipp') && peerAvailable('flite');
const RATE = 8000;
const FIRST_WORDS = 'Could you tell me';
const REST = 'your hours on Wednesday?';
const PAUSED_LINE = `${FIRST_WORDS} ${REST}`;
const GOODBYE = 'Great, thanks so much. Goodbye.';
/** The hesitation: longer than the 0.3 s + 0.8 s of quiet that ended a line before issue 29. */
const PAUSE_SECONDS = 1.6;

let live: LiveReceptionist;

/** flite's words as the line carries them (µ-law), without flite's own leading and trailing quiet. */
function spoken(text: string): Int16Array {
  const pcm = decodeG711('PCMU', encodeG711('PCMU', flite(text)));
  let from = 0;
  let to = pcm.length;
  while (from < to && Math.abs(pcm[from]!) < 300) from++;
  while (to > from && Math.abs(pcm[to - 1]!) < 300) to--;
  return pcm.slice(from, to);
}

function joined(...parts: Int16Array[]): Int16Array {
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const clips = new Map<string, Int16Array>();

before(async () => {
  if (!hasPeers) return;
  live = await startLiveReceptionist({ number: '+14155550143', key: 'sk-test-ai-turn', rtp: [61000, 61198] });
  const first = spoken(FIRST_WORDS);
  clips.set(PAUSED_LINE, joined(first, new Int16Array(Math.round(PAUSE_SECONDS * RATE)), spoken(REST)));
  clips.set(GOODBYE, spoken(GOODBYE));
  live.speech.teach(FIRST_WORDS, first);
  live.speech.teach(PAUSED_LINE, clips.get(PAUSED_LINE)!);
  live.speech.teach(GOODBYE, clips.get(GOODBYE)!);
});

after(async () => {
  await live?.close();
});

interface Turn { speaker: string; text: string; action: string | null }

describe('issue 29: a live caller who pauses mid-sentence is not cut off', { skip: !hasPeers }, () => {
  test('the paused question reaches the agent whole and is answered; the complete goodbye ends the call', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-ai-turn-call-'));
    // Quiet through the greeting, the paused question at 7 s, the goodbye at 20 s.
    const line = new Int16Array(34 * RATE);
    line.set(clips.get(PAUSED_LINE)!, 7 * RATE);
    line.set(clips.get(GOODBYE)!, 20 * RATE);
    const ulaw = encodeG711('PCMU', line);
    const payloads: Uint8Array[] = [];
    for (let at = 0; at + 160 <= ulaw.length; at += 160) payloads.push(ulaw.subarray(at, at + 160));
    writeRtpPcap(join(dir, 'caller.pcap'), payloads);
    const scenario = join(dir, 'uac-inbound-speak.xml');
    writeFileSync(scenario, readFileSync(join(SCENARIOS, 'uac-inbound.xml'), 'utf8')
      .replace('<recv request="BYE"/>', `<nop><action><exec play_pcap_audio="${join(dir, 'caller.pcap')}"/></action></nop>\n  <recv request="BYE"/>`));
    const sipp = await runSipp({ scenario, remote: `127.0.0.1:${live.sipPort}`, args: ['-s', live.number], timeoutSeconds: 70 });
    const result = await sipp.done;
    assert.equal(result.code, 0, `the agent hung up after the goodbye (SIPp: ${result.errors})`);

    const list = (await live.t.as(live.acct.keys.live).get('/v1/ai/conversations?limit=1')).body as { data: Array<{ id: string }> };
    const conversation = (await live.t.as(live.acct.keys.live).get(`/v1/ai/conversations/${list.data[0]!.id}`)).body as { transcript: Turn[] };
    const transcript = conversation.transcript;
    assert.deepEqual(transcript.map((turn) => [turn.speaker, turn.action]), [
      ['agent', 'greet'], ['caller', null], ['agent', 'answer'], ['caller', null], ['agent', 'end'],
    ], JSON.stringify(transcript));
    assert.equal(transcript[1]!.text, PAUSED_LINE, 'the caller was heard to the end of the line, not cut at the pause');
    assert.match(transcript[2]!.text, /10:00 a\.m\. to 7:00 p\.m\./);
    assert.equal(transcript[3]!.text, GOODBYE);
    // The pause was judged on the words before it: they reached speech-to-text on their own.
    assert.ok(live.speech.requests.some((r) => r.heard === FIRST_WORDS), 'the words before the pause were recognised on their own');
  });
});
