// Bridged transfers and a flow's dial on live calls, with SIPp as the trunk taking both
// legs: we call the target ourselves and relay RTP between the legs through the media
// engine. What proves the relay: the call's recording (our side, channel 0) carries the
// target's audio once bridged, which only the relay can put there. Early media (a 183 with
// SDP) is relayed the same way before any answer; a 180 without SDP gives the caller our
// ringback tone (440 + 480 Hz) until then.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sippAudio } from '../helpers/pcap.ts';
import { typesOf, waitForTypes } from '../voice/voice-helpers.ts';
import { freeUdpPort, peerAvailable, runSipp, type SippRun } from '../helpers/sipp.ts';
import { startLiveVoice, type LiveVoice } from '../helpers/live-voice.ts';
import { matchAudio, toneShare } from '../helpers/audio-match.ts';

const hasSipp = peerAvailable('sipp');
const FROM = '+14155550142';
const TO = '+14155550199';
const TARGET = '+14155550100';
const BUSY_TARGET = '+14155550111';
/** Plays an announcement as early media (183 with SDP), then is busy: see uas-bridge-early.xml. */
const ANNOUNCING_BUSY_TARGET = '+14155550122';

let lv: LiveVoice;
let trunkPort: number;

/**
 * How long a bridge must stay up for the whole of SIPp's capture (uas-bridge.xml plays it once
 * the target's leg is answered) to reach the caller's recording: its length, plus 2 s for the
 * relay to start. This is real media flowing in real time, so it is a wait, not a poll: nothing
 * we can observe says "the capture has been relayed" before the recording is ready, and that
 * needs the hang-up this wait precedes. The correlation below is scored over the whole capture.
 */
const RELAY_MS = Math.ceil(sippAudio().length / 8) + 2000;
const relayCapture = () => new Promise((resolve) => setTimeout(resolve, RELAY_MS));

before(async () => {
  if (!hasSipp) return;
  trunkPort = await freeUdpPort();
  lv = await startLiveVoice({
    rtp: [46500, 46598],
    trunks: [`{ name: sipp, host: 127.0.0.1, port: ${trunkPort}, codecs: [PCMU, PCMA], transfer: bridge }`],
    numbers: { [FROM]: 'sipp' },
  });
});

after(async () => {
  await lv?.close();
});

const live = () => lv.live();

async function sippOk(sipp: SippRun) {
  const result = await sipp.done;
  assert.equal(result.code, 0, result.errors);
}

describe('bridged transfer (transfer: bridge on the trunk)', { skip: !hasSipp }, () => {
  test('the target answers: call.transferred, its audio is relayed to the caller, and a hang-up ends both legs', async (ctx) => {
    const sipp = await runSipp({ scenario: 'uas-bridge.xml', port: trunkPort, args: ['-m', '2'] });
    const placed = await live().post('/v1/calls', { from: FROM, to: TO, record: true });
    assert.equal(placed.status, 200, JSON.stringify(placed.body));
    const callId = placed.body.id as string;
    await lv.receiver.waitForEvent('call.answered', callId, 15_000);
    const res = await live().post(`/v1/calls/${callId}/transfer`, { to: TARGET });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const transferred = await lv.receiver.waitForEvent('call.transferred', callId, 20_000);
    assert.equal(transferred.data.object.transfers[0].status, 'completed');
    assert.equal((await live().get(`/v1/calls/${callId}`)).body.status, 'in_progress', 'a bridged call stays ours');
    // Let the target's capture play through the bridge, then hang up: BYE to both legs.
    await relayCapture();
    const hung = await live().post(`/v1/calls/${callId}/hangup`);
    assert.equal(hung.body.status, 'completed');
    await waitForTypes(lv.receiver, callId, ['call.queued', 'call.ringing', 'call.answered', 'call.transfer_started', 'call.transferred', 'call.completed'], 20_000);
    await sippOk(sipp);

    // Channel 0 is what we sent the caller: after the bridge, the target's audio.
    const wav = await lv.recordingOf(callId);
    const relayed = matchAudio(sippAudio(), wav.samples[0]!, 40_000);
    ctx.diagnostic(`the target's audio in what the caller heard: correlation ${relayed.correlation.toFixed(4)} at lag ${relayed.lag}`);
    assert.ok(relayed.correlation > 0.95, `relayed target audio vs SIPp's capture: correlation ${relayed.correlation}`);
  });

  test('the target is busy: call.transfer_failed (busy), and the call is still up until we hang up', async () => {
    const sipp = await runSipp({ scenario: 'uas-bridge.xml', port: trunkPort, args: ['-m', '2'] });
    const placed = await live().post('/v1/calls', { from: FROM, to: TO });
    const callId = placed.body.id as string;
    await lv.receiver.waitForEvent('call.answered', callId, 15_000);
    await live().post(`/v1/calls/${callId}/transfer`, { to: BUSY_TARGET });
    const failed = await lv.receiver.waitForEvent('call.transfer_failed', callId, 20_000);
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
    const dialed = (await lv.receiver.waitFor((evs) => evs.some(ofDial), 20_000)).find(ofDial)!;
    assert.equal(dialed.data.object.outcome, 'busy');
    assert.equal(dialed.data.object.talk_seconds, 0);
    await lv.receiver.waitForEvent('call.completed', callId, 20_000);
    // (call.dial.completed took sequence 4 of the call's events.)
    assert.deepEqual(typesOf(lv.receiver, callId), ['call.queued', 'call.ringing', 'call.answered', 'call.completed']);
    const flow = await live().get(`/v1/calls/${callId}/flow`);
    assert.deepEqual(flow.body.log.map((entry: { verb: string }) => entry.verb), ['dial', 'pause']);
    await sippOk(sipp);
  });

  test('a target that rings, plays early media, then is busy: the caller hears ringback, then the announcement; the outcome is busy', async (ctx) => {
    const sipp = await runSipp({ scenario: 'uas-bridge-early.xml', port: trunkPort, args: ['-m', '2'] });
    const placed = await live().post('/v1/calls', { from: FROM, to: TO, record: true, flow: [{ dial: { to: ANNOUNCING_BUSY_TARGET, timeout: 20 } }] });
    assert.equal(placed.status, 200, JSON.stringify(placed.body));
    const callId = placed.body.id as string;
    const ofDial = (e: { type: string; data: { object: { call_id?: string } } }) => e.type === 'call.dial.completed' && e.data.object.call_id === callId;
    const dialed = (await lv.receiver.waitFor((evs) => evs.some(ofDial), 30_000)).find(ofDial)!;
    assert.equal(dialed.data.object.outcome, 'busy');
    assert.equal(dialed.data.object.talk_seconds, 0, 'early media is not talk time');
    await lv.receiver.waitForEvent('call.completed', callId, 20_000);
    await sippOk(sipp);
    // Channel 0 is what we sent the caller: the announcement, relayed before any answer.
    const wav = await lv.recordingOf(callId);
    const relayed = matchAudio(sippAudio(), wav.samples[0]!, 40_000);
    ctx.diagnostic(`the early announcement in what the caller heard: correlation ${relayed.correlation.toFixed(4)} at lag ${relayed.lag}`);
    assert.ok(relayed.correlation > 0.95, `early media vs SIPp's capture: correlation ${relayed.correlation}`);
    // Before it, while the target rang (180 without SDP, 2.5 s), our ringback: the recording
    // starts at the caller's answer and the dial right after it.
    const [from, length] = [4000, 10_000];
    const ring = toneShare(wav.samples[0]!, 440, from, length) + toneShare(wav.samples[0]!, 480, from, length);
    const other = toneShare(wav.samples[0]!, 1000, from, length);
    ctx.diagnostic(`ringback while the target rang: ${ring.toFixed(3)} of the energy at 440 + 480 Hz, ${other.toFixed(3)} at 1 kHz`);
    assert.ok(ring > 0.8 && other < 0.05, `ringback: ${ring} at 440 + 480 Hz, ${other} at 1 kHz`);
  });

  test('answered target: bridged until we hang up; its audio reaches the caller', async (ctx) => {
    const sipp = await runSipp({ scenario: 'uas-bridge.xml', port: trunkPort, args: ['-m', '2'] });
    const placed = await live().post('/v1/calls', { from: FROM, to: TO, record: true, flow: [{ dial: { to: TARGET, timeout: 10 } }] });
    const callId = placed.body.id as string;
    await lv.receiver.waitForEvent('call.answered', callId, 15_000);
    // The dial answers right after the caller does (the target sends 180 then 200 at once).
    await relayCapture();
    const hung = await live().post(`/v1/calls/${callId}/hangup`);
    assert.equal(hung.body.status, 'completed');
    await sippOk(sipp);
    const wav = await lv.recordingOf(callId);
    const relayed = matchAudio(sippAudio(), wav.samples[0]!, 40_000);
    ctx.diagnostic(`the dialled party's audio in what the caller heard: correlation ${relayed.correlation.toFixed(4)} at lag ${relayed.lag}`);
    assert.ok(relayed.correlation > 0.95, `relayed audio vs SIPp's capture: correlation ${relayed.correlation}`);
  });
});
