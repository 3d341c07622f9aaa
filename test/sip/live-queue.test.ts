// A live caller in a queue, with SIPp as the trunk taking both legs: the caller hears the
// queue's wait flow (spoken over its RTP), then POST .../members/front/dequeue {"to"} dials a
// second leg and the media engine bridges it to the caller (the bridge a flow's dial runs).
// What proves it: the caller's recording, our side (channel 0), carries the spoken wait audio
// before the dequeue and the dialled party's audio after it, which only the relay can put there.
// issue 25: queues on live calls.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { sippAudio } from '../helpers/pcap.ts';
import { freeUdpPort, peerAvailable, runSipp } from '../helpers/sipp.ts';
import { startLiveVoice, type LiveVoice } from '../helpers/live-voice.ts';
import { matchAudio } from '../helpers/audio-match.ts';

const hasSipp = peerAvailable('sipp');
const FROM = '+14155550142';
const TO = '+14155550199';
const TARGET = '+14155550100';

let lv: LiveVoice;
let trunkPort: number;

/**
 * The bridge stays up for the whole of SIPp's capture (uas-bridge.xml plays it once the
 * dialled leg is answered) plus 2 s for the relay to start: real media in real time, and
 * nothing observable says it has been relayed before the recording is ready (which needs the
 * hang-up this wait precedes).
 */
const RELAY_MS = Math.ceil(sippAudio().length / 8) + 2000;

before(async () => {
  if (!hasSipp) return;
  trunkPort = await freeUdpPort();
  lv = await startLiveVoice({
    rtp: [44100, 44198],
    trunks: [`{ name: sipp, host: 127.0.0.1, port: ${trunkPort}, codecs: [PCMU, PCMA] }`],
    numbers: { [FROM]: 'sipp' },
  });
});

after(async () => {
  await lv?.close();
});

/** The loudest quarter second of `samples` before sample `until`, as root mean square. */
function loudestBefore(samples: Int16Array, until: number): number {
  let loudest = 0;
  for (let start = 0; start + 2000 <= until; start += 400) {
    let sum = 0;
    for (let i = start; i < start + 2000; i++) sum += (samples[i] ?? 0) ** 2;
    loudest = Math.max(loudest, Math.sqrt(sum / 2000));
  }
  return loudest;
}

test('an enqueued live caller hears the wait flow, then a dequeue bridges it to a dialled leg whose audio it hears', { skip: !hasSipp }, async (ctx) => {
  const live = lv.live();
  const queue = await live.post('/v1/queues', { name: 'live-support', wait_flow: [{ say: { text: 'You are number {{queue.position}} in line. Please hold.' } }, { pause: { seconds: 1 } }] });
  assert.equal(queue.status, 200, JSON.stringify(queue.body));
  const sipp = await runSipp({ scenario: 'uas-bridge.xml', port: trunkPort, args: ['-m', '2'] });
  const placed = await live.post('/v1/calls', { from: FROM, to: TO, record: true, flow: [{ enqueue: { queue: 'live-support' } }, { hangup: {} }] });
  assert.equal(placed.status, 200, JSON.stringify(placed.body));
  const callId = placed.body.id as string;
  const ofCall = (e: { type: string; data: { object: { call_id?: string } } }) => e.type === 'call.queue.joined' && e.data.object.call_id === callId;
  const joined = (await lv.receiver.waitFor((events) => events.some(ofCall), 15_000)).find(ofCall)!;
  assert.equal(joined.data.object.position, 1);
  // Let the spoken wait audio play a while before taking the caller (speech synthesis starts
  // it; on a loaded machine that can take a few seconds).
  await new Promise((resolve) => setTimeout(resolve, 8000));
  const taken = await live.post(`/v1/queues/${queue.body.id}/members/front/dequeue`, { to: TARGET, timeout: 10 });
  assert.equal(taken.status, 200, JSON.stringify(taken.body));
  assert.equal(taken.body.call_id, callId);
  await new Promise((resolve) => setTimeout(resolve, RELAY_MS));
  const hung = await live.post(`/v1/calls/${callId}/hangup`);
  assert.equal(hung.body.status, 'completed');
  const result = await sipp.done;
  assert.equal(result.code, 0, result.errors);

  const wav = await lv.recordingOf(callId);
  const ours = wav.samples[0]!;
  const relayed = matchAudio(sippAudio(), ours, 120_000);
  ctx.diagnostic(`the dialled party's audio in what the caller heard: correlation ${relayed.correlation.toFixed(4)} at lag ${relayed.lag}`);
  assert.ok(relayed.correlation > 0.95, `relayed audio vs SIPp's capture: correlation ${relayed.correlation}`);
  assert.ok(relayed.lag > 7 * 8000, `the dialled party is heard only after the dequeue (lag ${relayed.lag} samples)`);
  // In its first 7 s (the dequeue came 8 s after it joined, so before any ringback or relay),
  // what the caller heard was the spoken wait flow: our silence records as 0.
  const waitLoudness = loudestBefore(ours, 7 * 8000);
  ctx.diagnostic(`the wait audio before the dequeue: loudest rms ${waitLoudness.toFixed(0)}`);
  assert.ok(waitLoudness > 100, `the caller heard the spoken wait flow before the dequeue (rms ${waitLoudness})`);
});
