// Issue 26, a worker reached at a SIP URI end to end: the worker is a SIPp UAS (answering with
// an 800 Hz tone in A-law) at sip:agent@127.0.0.1:<port>, a URI no trunk knows; a live caller
// (another SIPp trunk, sending 500 Hz in µ-law) waits in a queue routed to the worker. The
// offer's INVITE goes straight to the URI, the worker answers, and the two are connected.
// Audio both ways: the caller's recording (channel 0, what we sent it) holds the worker's
// tone, and a recording of the worker's call started once connected holds the caller's.
// (Loopback is a private address: this test server allows private targets, as tests do.)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { freeUdpPort, peerAvailable, runSipp } from '../helpers/sipp.ts';
import { toneTrunk } from '../helpers/tone-trunk.ts';
import { startLiveVoice, type LiveVoice } from '../helpers/live-voice.ts';
import { toneShare } from '../helpers/audio-match.ts';
import type { ReceivedEvent } from '../helpers/webhook-receiver.ts';

const hasSipp = peerAvailable('sipp');
const RATE = 8000;
const CALLER_FROM = '+14155550181';
const TO = '+14155550199';

let lv: LiveVoice;
let callerPort: number;

before(async () => {
  if (!hasSipp) return;
  callerPort = await freeUdpPort();
  lv = await startLiveVoice({
    rtp: [50000, 50098],
    trunks: [`{ name: sipp-caller, host: 127.0.0.1, port: ${callerPort}, codecs: [PCMU, PCMA] }`],
    numbers: { [CALLER_FROM]: 'sipp-caller' },
  });
});

after(async () => {
  await lv?.close();
});

/** Shares of the two tones in `samples` from `start` for `length` samples. */
function hearing(samples: Int16Array, start: number, length: number) {
  return { caller: toneShare(samples, 500, start, length), worker: toneShare(samples, 800, start, length) };
}

test('a worker reached at a SIP URI is offered a waiting live caller, its URI is rung over no trunk, and the two hear each other', { skip: !hasSipp, timeout: 120_000 }, async (ctx) => {
  const live = lv.live();
  const workerSipp = await runSipp({ scenario: toneTrunk(800, 'PCMA', 60), timeoutSeconds: 100 });
  const reach = `sip:agent@127.0.0.1:${workerSipp.port}`;
  const worker = await live.post('/v1/workers', { name: 'Desk phone', skills: ['uri'], reach, status: 'available' });
  assert.equal(worker.status, 200, JSON.stringify(worker.body));
  const queue = await live.post('/v1/queues', { name: 'uri-workers', wait_flow: [{ pause: { seconds: 1 } }], routing: { required_skills: ['uri'] } });
  assert.equal(queue.status, 200, JSON.stringify(queue.body));

  const callerSipp = await runSipp({ scenario: toneTrunk(500, 'PCMU', 60), port: callerPort, timeoutSeconds: 100 });
  const caller = await live.post('/v1/calls', { from: CALLER_FROM, to: TO, record: true, flow: [{ enqueue: { queue: 'uri-workers' } }, { hangup: {} }] });
  assert.equal(caller.status, 200, JSON.stringify(caller.body));
  const callerId = caller.body.id as string;

  const bridged = (e: ReceivedEvent) => e.type === 'call.queue.left' && e.data.object.call_id === callerId;
  // Webhooks arrive in any order: wait for both the caller's bridging and the worker's connect.
  const connected = (e: ReceivedEvent) => e.type === 'worker.connected' && e.data.object.id === worker.body.id;
  const events = await lv.receiver.waitFor((all) => all.some(bridged) && all.some(connected), 60_000);
  assert.equal(events.find(bridged)!.data.object.result, 'bridged');
  const connectedAt = Date.now();
  const ofWorker = events.filter((e) => e.type.startsWith('worker.') && e.data.object.id === worker.body.id).map((e) => e.type);
  assert.deepEqual(ofWorker.filter((t) => t !== 'worker.status_changed'), ['worker.offered', 'worker.connected']);
  const busy = (await live.get(`/v1/workers/${worker.body.id}`)).body;
  assert.equal(busy.status, 'busy');
  const workerCallId = busy.current_call_id as string;
  const workerCall = (await live.get(`/v1/calls/${workerCallId}`)).body;
  assert.deepEqual([workerCall.to, workerCall.from, workerCall.status], [reach, CALLER_FROM, 'in_progress']);
  const recordedFrom = Date.now();
  const recording = await live.post(`/v1/calls/${workerCallId}/recordings`, {});
  assert.equal(recording.status, 200, JSON.stringify(recording.body));

  await sleep(4000);
  const hung = await live.post(`/v1/calls/${callerId}/hangup`);
  assert.equal(hung.status, 200, JSON.stringify(hung.body));
  const hungAt = Date.now();
  for (const [name, sipp] of [['caller', callerSipp], ['worker', workerSipp]] as const) {
    const result = await sipp.done;
    assert.equal(result.code, 0, `SIPp ${name} got our BYE: ${result.errors}`);
  }

  // The caller heard the worker: channel 0 of its recording while connected.
  const call = (await live.get(`/v1/calls/${callerId}`)).body;
  const at = (mark: number) => Math.round(((mark - Date.parse(call.answered_at)) / 1000) * RATE);
  const sentCaller = (await lv.recordingOf(callerId)).samples[0]!;
  const start = at(connectedAt) + RATE;
  const length = at(hungAt) - RATE / 2 - start;
  assert.ok(length >= RATE, 'a second or more of the caller\'s audio while connected');
  const callerHears = hearing(sentCaller, start, length);
  ctx.diagnostic(`the caller hears the worker at share ${callerHears.worker.toFixed(3)}, itself at ${callerHears.caller.toFixed(3)}`);
  assert.ok(callerHears.worker > 0.5, `the caller hears the worker's tone: ${callerHears.worker}`);
  assert.ok(callerHears.caller < 0.02, `the caller does not hear itself: ${callerHears.caller}`);

  // The worker heard the caller: channel 0 of its call's recording (started once connected),
  // from a second after it started to half a second before the caller hung up.
  const sentWorker = (await lv.recordingOf(workerCallId)).samples[0]!;
  const window = Math.min(sentWorker.length, Math.round(((hungAt - recordedFrom) / 1000) * RATE)) - RATE - RATE / 2;
  ctx.diagnostic(`the worker's recording: ${sentWorker.length} samples, ${window} judged`);
  assert.ok(window >= RATE, `the worker's recording holds ${sentWorker.length} samples`);
  const workerHears = hearing(sentWorker, RATE, window);
  ctx.diagnostic(`the worker hears the caller at share ${workerHears.caller.toFixed(3)}, itself at ${workerHears.worker.toFixed(3)}`);
  assert.ok(workerHears.caller > 0.5, `the worker hears the caller's tone: ${workerHears.caller}`);
  assert.ok(workerHears.worker < 0.02, `the worker does not hear itself: ${workerHears.worker}`);
});
