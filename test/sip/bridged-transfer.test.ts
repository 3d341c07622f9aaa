// Bridged transfers and a flow's dial on live calls, with SIPp as the trunk taking both
// legs: we call the target ourselves and relay RTP between the legs through the media
// engine. What proves the relay: the call's recording (our side, channel 0) carries the
// target's audio once bridged, which only the relay can put there.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer, type CreatedAccount } from '../helpers/server.ts';
import type { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { subscribedReceiver, typesOf, waitForTypes } from '../voice/voice-helpers.ts';
import { freeUdpPort, peerAvailable, runSipp, type SippRun } from '../helpers/sipp.ts';
import { decodeWav } from '../../src/media/wav.ts';
import { decodeG711 } from '../../src/carriers/rtp/g711.ts';
import { readRtpPcap } from '../helpers/pcap.ts';
import { matchAudio } from '../helpers/audio-match.ts';

const hasSipp = peerAvailable('sipp');
const FROM = '+14155550142';
const TO = '+14155550199';
const TARGET = '+14155550100';
const BUSY_TARGET = '+14155550111';

let t: TestServer;
let acct: CreatedAccount;
let receiver: WebhookReceiver;
let trunkPort: number;

before(async () => {
  if (!hasSipp) return;
  trunkPort = await freeUdpPort();
  const sipPort = await freeUdpPort();
  const carriersFile = join(mkdtempSync(join(tmpdir(), 'sb-bridge-')), 'carriers.yaml');
  writeFileSync(carriersFile, [
    'sip:',
    `  listen: { host: 127.0.0.1, udp_port: ${sipPort} }`,
    '  public_host: 127.0.0.1',
    '  rtp: { port_min: 46500, port_max: 46598 }',
    '  trunks:',
    `    - { name: sipp, host: 127.0.0.1, port: ${trunkPort}, codecs: [PCMU, PCMA], transfer: bridge }`,
    '',
  ].join('\n'));
  t = await startTestServer({ SWITCHBOARD_CARRIERS_FILE: carriersFile });
  acct = await t.createAccount('growth');
  const imported = spawnSync(process.execPath, ['bin/switchboard.js', 'numbers', 'import', '--account', acct.account.id, '--number', FROM, '--trunk', 'sipp', '--json'], {
    env: { ...process.env, SWITCHBOARD_DATA_DIR: t.store.dataDir, SWITCHBOARD_CARRIERS_FILE: carriersFile, ...(t.store.databaseUrl ? { DATABASE_URL: t.store.databaseUrl } : {}) },
  });
  assert.equal(imported.status, 0, String(imported.stderr));
  receiver = await subscribedReceiver(t, acct.keys.live);
});

after(async () => {
  await receiver?.close();
  await t?.close();
});

const live = () => t.as(acct.keys.live);

async function sippOk(sipp: SippRun) {
  const result = await sipp.done;
  assert.equal(result.code, 0, result.errors);
}

/** SIPp's A-law capture as 8 kHz PCM: what each of its legs streams once answered. */
function sippAudio(): Int16Array {
  const sent = readRtpPcap('/usr/share/sip-tester/g711a.pcap').map((p) => decodeG711('PCMA', p.payload));
  const reference = new Int16Array(sent.reduce((n, p) => n + p.length, 0));
  sent.reduce((at, p) => (reference.set(p, at), at + p.length), 0);
  return reference;
}

async function recordingOf(callId: string) {
  const ofCall = (e: { type: string; data: { object: { call_id?: string } } }) => e.type === 'call.recording.ready' && e.data.object.call_id === callId;
  const ready = (await receiver.waitFor((evs) => evs.some(ofCall), 30_000)).find(ofCall)!;
  const media = await fetch(`${t.url}/v1/recordings/${ready.data.object.id}/media`, { headers: { authorization: `Bearer ${acct.keys.live}` } });
  assert.equal(media.status, 200);
  return decodeWav(Buffer.from(await media.arrayBuffer()));
}

describe('bridged transfer (transfer: bridge on the trunk)', { skip: !hasSipp }, () => {
  test('the target answers: call.transferred, its audio is relayed to the caller, and a hang-up ends both legs', async (ctx) => {
    const sipp = await runSipp({ scenario: 'uas-bridge.xml', port: trunkPort, args: ['-m', '2'] });
    const placed = await live().post('/v1/calls', { from: FROM, to: TO, record: true });
    assert.equal(placed.status, 200, JSON.stringify(placed.body));
    const callId = placed.body.id as string;
    await receiver.waitForEvent('call.answered', callId, 15_000);
    const res = await live().post(`/v1/calls/${callId}/transfer`, { to: TARGET });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const transferred = await receiver.waitForEvent('call.transferred', callId, 20_000);
    assert.equal(transferred.data.object.transfers[0].status, 'completed');
    assert.equal((await live().get(`/v1/calls/${callId}`)).body.status, 'in_progress', 'a bridged call stays ours');
    // Let the target's capture play through the bridge, then hang up: BYE to both legs.
    await new Promise((resolve) => setTimeout(resolve, 9000));
    const hung = await live().post(`/v1/calls/${callId}/hangup`);
    assert.equal(hung.body.status, 'completed');
    await waitForTypes(receiver, callId, ['call.queued', 'call.ringing', 'call.answered', 'call.transferred', 'call.completed'], 20_000);
    await sippOk(sipp);

    // Channel 0 is what we sent the caller: after the bridge, the target's audio.
    const wav = await recordingOf(callId);
    const relayed = matchAudio(sippAudio(), wav.samples[0]!, 40_000);
    ctx.diagnostic(`the target's audio in what the caller heard: correlation ${relayed.correlation.toFixed(4)} at lag ${relayed.lag}`);
    assert.ok(relayed.correlation > 0.95, `relayed target audio vs SIPp's capture: correlation ${relayed.correlation}`);
  });

  test('the target is busy: call.transfer_failed (busy), and the call is still up until we hang up', async () => {
    const sipp = await runSipp({ scenario: 'uas-bridge.xml', port: trunkPort, args: ['-m', '2'] });
    const placed = await live().post('/v1/calls', { from: FROM, to: TO });
    const callId = placed.body.id as string;
    await receiver.waitForEvent('call.answered', callId, 15_000);
    await live().post(`/v1/calls/${callId}/transfer`, { to: BUSY_TARGET });
    const failed = await receiver.waitForEvent('call.transfer_failed', callId, 20_000);
    assert.equal(failed.data.object.transfers[0].status, 'busy');
    assert.equal((await live().get(`/v1/calls/${callId}`)).body.status, 'in_progress');
    const hung = await live().post(`/v1/calls/${callId}/hangup`);
    assert.equal(hung.body.status, 'completed');
    await sippOk(sipp);
  });
});

describe('a flow\'s dial on a live call (a bridged second leg)', { skip: !hasSipp }, () => {
  test('busy target: the dial\'s outcome is busy and the flow goes on to its next verb', async () => {
    const sipp = await runSipp({ scenario: 'uas-bridge.xml', port: trunkPort, args: ['-m', '2'] });
    const placed = await live().post('/v1/calls', { from: FROM, to: TO, flow: [{ dial: { to: BUSY_TARGET, timeout: 10 } }, { pause: { seconds: 1 } }] });
    const callId = placed.body.id as string;
    // The dial's event is about the dial (object call_dial, naming its call_id).
    const ofDial = (e: { type: string; data: { object: { call_id?: string } } }) => e.type === 'call.dial.completed' && e.data.object.call_id === callId;
    const dialed = (await receiver.waitFor((evs) => evs.some(ofDial), 20_000)).find(ofDial)!;
    assert.equal(dialed.data.object.outcome, 'busy');
    assert.equal(dialed.data.object.talk_seconds, 0);
    await receiver.waitForEvent('call.completed', callId, 20_000);
    // (call.dial.completed took sequence 4 of the call's events.)
    assert.deepEqual(typesOf(receiver, callId), ['call.queued', 'call.ringing', 'call.answered', 'call.completed']);
    const flow = await live().get(`/v1/calls/${callId}/flow`);
    assert.deepEqual(flow.body.log.map((entry: { verb: string }) => entry.verb), ['dial', 'pause']);
    await sippOk(sipp);
  });

  test('answered target: bridged until we hang up; its audio reaches the caller', async (ctx) => {
    const sipp = await runSipp({ scenario: 'uas-bridge.xml', port: trunkPort, args: ['-m', '2'] });
    const placed = await live().post('/v1/calls', { from: FROM, to: TO, record: true, flow: [{ dial: { to: TARGET, timeout: 10 } }] });
    const callId = placed.body.id as string;
    await receiver.waitForEvent('call.answered', callId, 15_000);
    await new Promise((resolve) => setTimeout(resolve, 9000));
    const hung = await live().post(`/v1/calls/${callId}/hangup`);
    assert.equal(hung.body.status, 'completed');
    await sippOk(sipp);
    const wav = await recordingOf(callId);
    const relayed = matchAudio(sippAudio(), wav.samples[0]!, 40_000);
    ctx.diagnostic(`the dialled party's audio in what the caller heard: correlation ${relayed.correlation.toFixed(4)} at lag ${relayed.lag}`);
    assert.ok(relayed.correlation > 0.95, `relayed audio vs SIPp's capture: correlation ${relayed.correlation}`);
  });
});
