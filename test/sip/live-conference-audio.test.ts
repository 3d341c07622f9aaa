// Issue 25, played audio on live calls that wait or meet, with SIPp as the trunk: a WAV served
// on 127.0.0.1 (a one-second chirp, found in a recording at one place only) is
//   - looped to a caller waiting in a queue whose wait flow plays it,
//   - looped to a conference participant whose wait_flow plays it until the conference starts,
//   - announced to a conference with POST .../announce {"play"}, and found both in a
//     participant's audio and in the conference's own recording (the room tap), over the
//     participants' tones.
// Each is proved by correlating the recording with the file served (channel 0 of a call's
// recording is what we sent its leg).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { freeUdpPort, peerAvailable, runSipp, type SippRun } from '../helpers/sipp.ts';
import { toneTrunk } from '../helpers/tone-trunk.ts';
import { startLiveVoice, type LiveVoice } from '../helpers/live-voice.ts';
import { matchAudio } from '../helpers/audio-match.ts';
import type { ReceivedEvent } from '../helpers/webhook-receiver.ts';
import { decodeWav } from '../../src/media/wav.ts';
import { CHIRP, serveChirp, type ChirpServer } from '../helpers/chirp-server.ts';

const hasSipp = peerAvailable('sipp');
const TO = '+14155550199';
const A = { from: '+14155550171', hz: 500, port: 0 };
const B = { from: '+14155550172', hz: 800, port: 0 };

/** A match this close is the file (a trunk's tone over it, and G.711, leave it well above). */
const MATCHED = 0.7;

let lv: LiveVoice;
let audio: ChirpServer | undefined;
let chirpUrl: string;
const running: SippRun[] = [];

before(async () => {
  if (!hasSipp) return;
  audio = await serveChirp();
  chirpUrl = audio.url;
  A.port = await freeUdpPort();
  B.port = await freeUdpPort();
  lv = await startLiveVoice({
    rtp: [53000, 53998],
    trunks: [`{ name: sipp-a, host: 127.0.0.1, port: ${A.port}, codecs: [PCMU, PCMA] }`, `{ name: sipp-b, host: 127.0.0.1, port: ${B.port}, codecs: [PCMU, PCMA] }`],
    numbers: { [A.from]: 'sipp-a', [B.from]: 'sipp-b' },
  });
});

after(async () => {
  for (const sipp of running) sipp.process.kill('SIGKILL');
  await lv?.close();
  await audio?.close();
});

/** Places a recorded call from `party`'s trunk (SIPp answers with its tone) running `flow`. */
async function place(party: typeof A, flow: unknown[]): Promise<string> {
  const sipp = await runSipp({ scenario: toneTrunk(party.hz, 'PCMU'), port: party.port, timeoutSeconds: 80 });
  running.push(sipp);
  const placed = await lv.live().post('/v1/calls', { from: party.from, to: TO, record: true, flow });
  assert.equal(placed.status, 200, JSON.stringify(placed.body));
  return placed.body.id as string;
}

const event = (type: string, match: (object: any) => boolean) => async (): Promise<ReceivedEvent> => {
  const found = (e: ReceivedEvent) => e.type === type && match(e.data.object);
  return (await lv.receiver.waitFor((events) => events.some(found), 20_000)).find(found)!;
};

/** Waits for every SIPp run so far to end cleanly (our BYE reached it). */
async function sippDone(): Promise<void> {
  for (const sipp of running.splice(0)) assert.equal((await sipp.done).code, 0);
}

test('a live caller waiting in a queue hears the wait flow\'s play, looped', { skip: !hasSipp, timeout: 90_000 }, async (ctx) => {
  const live = lv.live();
  const queue = await live.post('/v1/queues', { name: 'live-play-wait', wait_flow: [{ play: { url: chirpUrl } }, { pause: { seconds: 0.5 } }] });
  assert.equal(queue.status, 200, JSON.stringify(queue.body));
  const callId = await place(A, [{ enqueue: { queue: 'live-play-wait' } }, { hangup: {} }]);
  await event('call.queue.joined', (o) => o.call_id === callId)();
  // Three passes or so (1.5 s each) before the caller hangs up.
  await sleep(5000);
  const hung = await live.post(`/v1/calls/${callId}/hangup`);
  assert.equal(hung.body.status, 'completed');
  await sippDone();
  const left = await event('call.queue.left', (o) => o.call_id === callId)();
  assert.equal(left.data.object.result, 'hangup');
  const ours = (await lv.recordingOf(callId)).samples[0]!;
  const match = matchAudio(CHIRP, ours, ours.length);
  ctx.diagnostic(`the caller heard the chirp at ${(match.lag / 8000).toFixed(2)} s: correlation ${match.correlation.toFixed(3)}`);
  assert.ok(match.correlation > MATCHED, `the caller heard the played file: ${match.correlation}`);
  // Looped: heard again a pass (1.5 s) later.
  const again = matchAudio(CHIRP, ours.subarray(match.lag + 8000), ours.length);
  assert.ok(again.correlation > MATCHED, `and again on the next pass: ${again.correlation}`);
});

test('a live conference participant waiting for the start hears its wait_flow\'s play, looped', { skip: !hasSipp, timeout: 90_000 }, async (ctx) => {
  const live = lv.live();
  const callId = await place(A, [{ conference: { name: 'live-play-wait', start_on_enter: false, wait_flow: [{ play: { url: chirpUrl } }, { pause: { seconds: 0.5 } }] } }, { hangup: {} }]);
  const joined = await event('conference.participant.joined', (o) => o.call_id === callId)();
  await sleep(5000);
  const ended = await live.post(`/v1/conferences/${joined.data.object.conference_id}/end`);
  assert.equal(ended.status, 200, JSON.stringify(ended.body));
  await sippDone();
  const ours = (await lv.recordingOf(callId)).samples[0]!;
  const match = matchAudio(CHIRP, ours, ours.length);
  ctx.diagnostic(`the participant heard the chirp at ${(match.lag / 8000).toFixed(2)} s: correlation ${match.correlation.toFixed(3)}`);
  assert.ok(match.correlation > MATCHED, `the waiting participant heard the played file: ${match.correlation}`);
  const again = matchAudio(CHIRP, ours.subarray(match.lag + 8000), ours.length);
  assert.ok(again.correlation > MATCHED, `and again on the next pass: ${again.correlation}`);
});

test('POST .../announce {"play"} on a live conference: the participants hear the file over the room, and the conference recording holds it', { skip: !hasSipp, timeout: 90_000 }, async (ctx) => {
  const live = lv.live();
  const a = await place(A, [{ conference: { name: 'live-announce', beep: false, record: true } }, { hangup: {} }]);
  const conferenceId = (await event('conference.participant.joined', (o) => o.call_id === a)()).data.object.conference_id as string;
  const b = await place(B, [{ conference: { name: 'live-announce', beep: false } }, { hangup: {} }]);
  await event('conference.participant.joined', (o) => o.call_id === b)();
  await sleep(1500);
  const announced = await live.post(`/v1/conferences/${conferenceId}/announce`, { play: { url: chirpUrl } });
  assert.equal(announced.status, 200, JSON.stringify(announced.body));
  await sleep(3000);
  const ended = await live.post(`/v1/conferences/${conferenceId}/end`);
  assert.equal(ended.status, 200, JSON.stringify(ended.body));
  await sippDone();

  const ready = await event('call.recording.ready', (o) => o.conference_id === conferenceId)();
  const media = await fetch(`${lv.t.url}/v1/recordings/${ready.data.object.id}/media`, { headers: { authorization: `Bearer ${lv.acct.keys.live}` } });
  assert.equal(media.status, 200);
  const room = decodeWav(Buffer.from(await media.arrayBuffer())).samples[0]!;
  const inRoom = matchAudio(CHIRP, room, room.length);
  ctx.diagnostic(`the room recording holds the chirp at ${(inRoom.lag / 8000).toFixed(2)} s: correlation ${inRoom.correlation.toFixed(3)}`);
  assert.ok(inRoom.correlation > MATCHED, `the conference recording holds the announcement: ${inRoom.correlation}`);
  for (const callId of [a, b]) {
    const ours = (await lv.recordingOf(callId)).samples[0]!;
    const heard = matchAudio(CHIRP, ours, ours.length);
    ctx.diagnostic(`${callId} heard the chirp: correlation ${heard.correlation.toFixed(3)}`);
    assert.ok(heard.correlation > MATCHED, `${callId} heard the announcement: ${heard.correlation}`);
  }
});
