// Issue 25, "Several nodes", for a conference participant held by another node than the
// conference's home: it hears its own wait_flow while the conference waits (played on its
// own node, not the home's hold tone), the room once it starts, and when the home node dies
// (SIGKILL) the node-loss rule ends the conference (`node_lost`, conference.ended once) and the
// participant's flow goes on. Two `switchboard serve` processes on one PostgreSQL database
// (test/helpers/two-tone-nodes.ts), each with a SIPp trunk of its own pitch (A 500 Hz, B 800 Hz).
// A's call makes the conference (so node A mixes it) without starting it; B's call, through
// node B, joins with a wait_flow playing a served chirp. A's flow is then updated to join again
// with start_on_enter, which starts it. Node A is killed; within its lease node B ends the
// conference and B's flow plays the chirp once more, then hangs up. What proves it: B's
// recording (channel 0, what we sent B's leg) holds the chirp and not the 440 Hz hold tone
// while waiting, A's pitch once started, and the chirp again after the end. On SQLite one node
// is the deployment, so this runs on PostgreSQL only.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { peerAvailable } from '../helpers/sipp.ts';
import { matchAudio, toneShare } from '../helpers/audio-match.ts';
import { CHIRP, serveChirp, type ChirpServer } from '../helpers/chirp-server.ts';
import { subscribeAll } from '../helpers/subscribe.ts';
import { until } from '../helpers/until.ts';
import { startTwoToneNodes, type TwoToneNodes } from '../helpers/two-tone-nodes.ts';
import type { WebhookReceiver } from '../helpers/webhook-receiver.ts';

const onPostgres = Boolean(process.env.DATABASE_URL);
const hasSipp = peerAvailable('sipp');
if (!onPostgres) console.error('\n(test/sip/conference-home-loss.test.ts runs on PostgreSQL only: on SQLite one node is the deployment.)\n');
const TO = '+14155550199';
const RATE = 8000;
const HOLD_HZ = 440;
/** Long enough for the wait flow's chirp to play twice, and the room to be heard for seconds. */
const PHASE_MS = 3500;
/** Samples left out after each change (its commit, the message to the home, the INFO, the jitter buffers). */
const SETTLE = RATE * 1;
/** A match this close is the file (G.711 once, on B's own node). */
const MATCHED = 0.7;
const LEASE_SECONDS = 5;

let nodes: TwoToneNodes;
let receiver: WebhookReceiver;
let chirp: ChirpServer;

before(async () => {
  if (!onPostgres || !hasSipp) return;
  chirp = await serveChirp();
  nodes = await startTwoToneNodes({ rtp: { B: [59500, 59748], A: [59750, 59998] }, leaseSeconds: LEASE_SECONDS });
  receiver = await subscribeAll(nodes.t, nodes.acct.keys.live);
});

after(async () => {
  await receiver?.close();
  await nodes?.close();
  await chirp?.close();
});

test('a participant on another node than the home hears its own wait_flow, then the room; the home SIGKILLed ends the conference (node_lost, once) and the participant\'s flow goes on', { skip: !onPostgres || !hasSipp, timeout: 150_000 }, async (ctx) => {
  const { A, B, detail } = nodes;
  const sipps = { A: await nodes.answer(A, 60), B: await nodes.answer(B, 60) };
  const room = { conference: { name: 'home-loss-room', beep: false, start_on_enter: false } };
  const callA = await A.api('POST', '/v1/calls', { from: A.from, to: TO, flow: [room, { hangup: {} }] });
  const seated = (callId: string) => async () => {
    const conference = (await B.api('GET', '/v1/conferences?name=home-loss-room')).data?.[0];
    if (!conference) return undefined;
    const joined = (await B.api('GET', `/v1/conferences/${conference.id}/participants?status=joined`)).data;
    return joined.some((p: { call_id: string }) => p.call_id === callId) && (conference.id as string);
  };
  const conferenceId = await until('A makes the conference', seated(callA.id), { timeoutMs: 30_000, detail });
  const callB = await B.api('POST', '/v1/calls', {
    from: B.from, to: TO, record: true,
    flow: [{ conference: { ...room.conference, wait_flow: [{ play: { url: chirp.url } }] } }, { play: { url: chirp.url } }, { hangup: {} }],
  });
  await until('B joins the conference', seated(callB.id), { timeoutMs: 30_000, detail });
  const [nodeOfA, nodeOfB] = [await nodes.nodeOf(callA.id), await nodes.nodeOf(callB.id)];
  assert.ok(nodeOfA && nodeOfB && nodeOfA !== nodeOfB, `the calls are on two nodes: ${nodeOfA}, ${nodeOfB}`);
  const marks: Record<string, number> = { waiting: Date.now() };
  assert.equal((await B.api('GET', `/v1/conferences/${conferenceId}`)).status, 'waiting');
  await sleep(PHASE_MS);

  // A joins again, now with start_on_enter: the conference starts (on node A, its home).
  await B.api('POST', `/v1/calls/${callA.id}/flow`, { flow: [{ conference: { ...room.conference, start_on_enter: true } }, { hangup: {} }] });
  await until('the conference starts', async () => (await B.api('GET', `/v1/conferences/${conferenceId}`)).status === 'in_progress', { timeoutMs: 30_000, detail });
  marks.started = Date.now();
  await sleep(PHASE_MS);

  nodes.nodeA.kill();
  marks.killed = Date.now();
  const ended = await until('a survivor ends the conference of the dead home', async () => {
    const body = await B.api('GET', `/v1/conferences/${conferenceId}`);
    return body.status === 'completed' && body;
  }, { timeoutMs: 60_000, detail });
  marks.ended = Date.now();
  assert.equal(ended.end_reason, 'node_lost');
  assert.equal(ended.participant_count, 0);
  // B's flow went on after the conference (a play, then its hangup): SIPp B got our BYE.
  const doneB = await sipps.B.done;
  assert.equal(doneB.code, 0, `SIPp B: ${doneB.errors}\n${detail()}`);
  const b = await B.api('GET', `/v1/calls/${callB.id}`);
  assert.equal(b.status, 'completed', JSON.stringify(b));
  const a = await B.api('GET', `/v1/calls/${callA.id}`);
  assert.deepEqual([a.status, a.failure?.carrier_code], ['failed', 'node_lost']);
  const seats = (await B.api('GET', `/v1/conferences/${conferenceId}/participants?status=left`)).data as Array<{ call_id: string; left_reason: string }>;
  assert.equal(seats.find((s) => s.call_id === callB.id)?.left_reason, 'conference_ended', JSON.stringify(seats));
  const endings = (await receiver.waitFor((events) => events.some((e) => e.type === 'conference.ended' && e.data.object.id === conferenceId), 30_000))
    .filter((e) => e.type === 'conference.ended' && e.data.object.id === conferenceId);
  assert.equal(endings.length, 1, 'conference.ended once');

  const { samples, at } = await nodes.heard(B, callB.id);
  const window = (from: string, to: string) => {
    const start = at(marks[from]!) + SETTLE;
    const end = at(marks[to]!);
    assert.ok(end - start >= RATE, `a second or more of B's audio between ${from} and ${to}`);
    return { start, length: end - start, samples: samples.subarray(start, end) };
  };
  const waiting = window('waiting', 'started');
  const waitMatch = matchAudio(CHIRP, waiting.samples, waiting.length);
  const holdShare = toneShare(samples, HOLD_HZ, waiting.start, waiting.length);
  ctx.diagnostic(`waiting: B's wait_flow chirp correlation ${waitMatch.correlation.toFixed(3)}, hold tone share ${holdShare.toFixed(3)}`);
  assert.ok(waitMatch.correlation > MATCHED, `B hears its own wait_flow while the conference waits: ${waitMatch.correlation}`);
  assert.ok(holdShare < 0.1, `B does not hear the home's hold tone: ${holdShare}`);
  const started = window('started', 'killed');
  const heardA = toneShare(samples, A.hz, started.start, started.length);
  const itself = toneShare(samples, B.hz, started.start, started.length);
  ctx.diagnostic(`started: B hears A at share ${heardA.toFixed(3)}, itself at ${itself.toFixed(3)}`);
  assert.ok(heardA > 0.3, `B hears A once the conference started: ${heardA}`);
  assert.ok(itself < 0.02, `B does not hear itself: ${itself}`);
  const after = samples.subarray(at(marks.killed!));
  const afterMatch = matchAudio(CHIRP, after, after.length);
  ctx.diagnostic(`after the home died: B's next verb's chirp correlation ${afterMatch.correlation.toFixed(3)}`);
  assert.ok(afterMatch.correlation > MATCHED, `B's flow went on to its play after the conference ended: ${afterMatch.correlation}`);
});
