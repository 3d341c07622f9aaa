// Issue 26, a worker's softphone end to end: baresip registers with Switchboard's registrar
// (digest, with the credentials POST /v1/workers/{id}/sip_credentials issued) and auto-answers.
// A live caller (SIPp, sending a 500 Hz tone) waits in a queue routed to the worker; the offer
// rings baresip at its registered contact, baresip answers and speaks an 800 Hz tone, and the
// two are connected. Audio both ways: what baresip heard is the caller's tone, and the
// caller's recording (channel 0, what we sent it) holds baresip's tone while connected.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freeUdpPort, peerAvailable, runSipp } from '../helpers/sipp.ts';
import { toneTrunk } from '../helpers/tone-trunk.ts';
import { startBaresip, type Baresip } from '../helpers/baresip.ts';
import { startLiveVoice, type LiveVoice } from '../helpers/live-voice.ts';
import { toneShare } from '../helpers/audio-match.ts';
import { until } from '../helpers/until.ts';
import type { ReceivedEvent } from '../helpers/webhook-receiver.ts';

const hasPeers = peerAvailable('sipp') && peerAvailable('baresip') && peerAvailable('sox');
const RATE = 8000;
const CALLER_FROM = '+14155550191';
const TO = '+14155550199';
const BARESIP_HOST = '127.0.0.3';
const USER = 'softphone.carol';

let lv: LiveVoice;
let callerPort: number;
let baresip: Baresip | undefined;

before(async () => {
  if (!hasPeers) return;
  callerPort = await freeUdpPort();
  lv = await startLiveVoice({
    rtp: [40300, 40398],
    trunks: [`{ name: sipp-caller, host: 127.0.0.1, port: ${callerPort}, codecs: [PCMU, PCMA] }`],
    numbers: { [CALLER_FROM]: 'sipp-caller' },
  });
});

after(async () => {
  await baresip?.stop();
  await lv?.close();
});

test('baresip registered as a worker is offered a waiting live caller, answers, and the two hear each other', { skip: !hasPeers, timeout: 120_000 }, async (ctx) => {
  const live = lv.live();
  const worker = await live.post('/v1/workers', { name: 'Carol', skills: ['softphone'], reach: { sip_user: USER }, status: 'available' });
  assert.equal(worker.status, 200, JSON.stringify(worker.body));
  const credentials = await live.post(`/v1/workers/${worker.body.id}/sip_credentials`);
  assert.equal(credentials.status, 200, JSON.stringify(credentials.body));
  const queue = await live.post('/v1/queues', { name: 'softphones', wait_flow: [{ pause: { seconds: 1 } }], routing: { required_skills: ['softphone'] } });
  assert.equal(queue.status, 200, JSON.stringify(queue.body));

  // baresip speaks an 800 Hz tone (then silence; it hangs up when its file runs out).
  const toneFile = join(mkdtempSync(join(tmpdir(), 'sb-softphone-')), 'tone.wav');
  const made = spawnSync('sox', ['-n', '-r', '8000', '-c', '1', '-b', '16', toneFile, 'synth', '30', 'sine', '800', 'gain', '-8', 'pad', '0', '60']);
  assert.equal(made.status, 0, String(made.stderr));
  const baresipPort = await freeUdpPort();
  baresip = await startBaresip({
    host: BARESIP_HOST, user: USER, port: baresipPort, speaks: toneFile, rtpPorts: { min: 40200, max: 40298 },
    register: { registrar: `127.0.0.1:${lv.sipPort}`, password: credentials.body.password, expires: 60 },
  });
  const baresipLog = () => `baresip said:\n${baresip!.log()}`;
  // Its registration, as the worker shows it.
  const registered = await until('baresip registers', async () => {
    const shown = (await live.get(`/v1/workers/${worker.body.id}`)).body;
    return shown.registered && shown;
  }, { timeoutMs: 20_000, detail: baresipLog });
  assert.equal(registered.registrations.length, 1);
  assert.equal(registered.registrations[0].source, `udp:${BARESIP_HOST}:${baresipPort}`);
  assert.match(registered.registrations[0].contact, new RegExp(`^sip:.*@${BARESIP_HOST.replace(/\./g, '\\.')}:${baresipPort}`));
  assert.match(registered.registrations[0].user_agent, /baresip/i);

  const callerSipp = await runSipp({ scenario: toneTrunk(500, 'PCMU', 60), port: callerPort, timeoutSeconds: 100 });
  const caller = await live.post('/v1/calls', { from: CALLER_FROM, to: TO, record: true, flow: [{ enqueue: { queue: 'softphones' } }, { hangup: {} }] });
  assert.equal(caller.status, 200, JSON.stringify(caller.body));
  const callerId = caller.body.id as string;

  const bridged = (e: ReceivedEvent) => e.type === 'call.queue.left' && e.data.object.call_id === callerId;
  const offered = (e: ReceivedEvent) => e.type === 'worker.offered' && e.data.object.id === worker.body.id;
  // Deliveries are concurrent: the offer's event may reach us after the bridge's.
  const events = await lv.receiver.waitFor((all) => all.some(bridged) && all.some(offered), 60_000).catch((err: Error) => assert.fail(`${err.message}\n${baresipLog()}`));
  assert.equal(events.find(bridged)!.data.object.result, 'bridged', baresipLog());
  const connectedAt = Date.now();
  const ofWorker = (type: string) => events.find((e) => e.type === type && e.data.object.id === worker.body.id);
  assert.ok(ofWorker('worker.offered'), 'worker.offered');
  const busy = (await live.get(`/v1/workers/${worker.body.id}`)).body;
  assert.equal(busy.status, 'busy');
  const workerCall = (await live.get(`/v1/calls/${busy.current_call_id}`)).body;
  assert.deepEqual([workerCall.to, workerCall.status], [`softphone:${USER}`, 'in_progress']);

  await sleep(4000);
  const hung = await live.post(`/v1/calls/${callerId}/hangup`);
  assert.equal(hung.status, 200, JSON.stringify(hung.body));
  const hungAt = Date.now();
  assert.equal((await callerSipp.done).code, 0, 'SIPp got our BYE');

  // The caller heard baresip: channel 0 of its recording while connected.
  const call = (await live.get(`/v1/calls/${callerId}`)).body;
  const at = (mark: number) => Math.round(((mark - Date.parse(call.answered_at)) / 1000) * RATE);
  const sent = (await lv.recordingOf(callerId)).samples[0]!;
  const start = at(connectedAt) + RATE;
  const length = at(hungAt) - RATE / 2 - start;
  assert.ok(length >= RATE, 'a second or more of the caller\'s audio while connected');
  const callerHears = toneShare(sent, 800, start, length);
  const callerHearsItself = toneShare(sent, 500, start, length);
  ctx.diagnostic(`the caller hears baresip at share ${callerHears.toFixed(3)}, itself at ${callerHearsItself.toFixed(3)}`);
  assert.ok(callerHears > 0.5, `the caller hears baresip's tone: ${callerHears}`);
  assert.ok(callerHearsItself < 0.02, `the caller does not hear itself: ${callerHearsItself}`);

  // And baresip heard the caller: its recording of the far end, from a second after it answered.
  await baresip.stop();
  const heard = baresip.heard();
  const window = Math.min(2 * RATE, heard.length - RATE);
  assert.ok(window >= RATE, `baresip recorded ${heard.length} samples`);
  const workerHears = toneShare(heard, 500, RATE, window);
  const workerHearsItself = toneShare(heard, 800, RATE, window);
  ctx.diagnostic(`baresip hears the caller at share ${workerHears.toFixed(3)}, itself at ${workerHearsItself.toFixed(3)}`);
  assert.ok(workerHears > 0.5, `baresip hears the caller's tone: ${workerHears}`);
  assert.ok(workerHearsItself < 0.02, `baresip does not hear itself: ${workerHearsItself}`);
});
