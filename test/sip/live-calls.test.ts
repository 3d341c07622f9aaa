// Live calls through the HTTP API over a SIP trunk played by SIPp on 127.0.0.1: the
// customer sees statuses, hangup causes, the SIP code and webhooks, and a recording made
// from the real audio SIPp streamed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { waitForTypes } from '../voice/voice-helpers.ts';
import { freeUdpPort, peerAvailable, runSipp, type SippRun } from '../helpers/sipp.ts';
import { startLiveVoice, type LiveVoice } from '../helpers/live-voice.ts';
import { decodeG711, encodeG711 } from '../../src/carriers/rtp/g711.ts';
import { sippAudio } from '../helpers/pcap.ts';
import { matchAudio } from '../helpers/audio-match.ts';
import { EmbeddedTextToSpeech } from '../../src/carriers/speech/text-to-speech.ts';

const hasSipp = peerAvailable('sipp');
const FROM = '+14155550142';
const TO = '+14155550199';

let lv: LiveVoice;
let trunkPort: number;

before(async () => {
  if (!hasSipp) return;
  trunkPort = await freeUdpPort();
  process.env.SIPP_TRUNK_PASSWORD = 's3cret-pass';
  lv = await startLiveVoice({
    rtp: [45000, 45998],
    trunks: [`{ name: sipp, host: 127.0.0.1, port: ${trunkPort}, username: trunkuser, password: "env:SIPP_TRUNK_PASSWORD", codecs: [PCMU, PCMA], transfer: refer }`],
    numbers: { [FROM]: 'sipp' },
  });
});

after(async () => {
  await lv?.close();
});

const live = () => lv.live();

async function place(body: Record<string, unknown> = {}) {
  const res = await live().post('/v1/calls', { from: FROM, to: TO, ...body });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.status, 'queued');
  return res.body as { id: string };
}

async function sippOk(sipp: SippRun) {
  const result = await sipp.done;
  assert.equal(result.code, 0, result.errors);
}

describe('live calls over a SIP trunk (SIPp)', { skip: !hasSipp }, () => {
  test('answered, SIPp streams audio and hangs up: completed by the callee, and the recording is that audio', async () => {
    const sipp = await runSipp({ scenario: 'uas-answer-play.xml', port: trunkPort });
    const call = await place({ record: true });
    const events = await waitForTypes(lv.receiver, call.id, ['call.queued', 'call.ringing', 'call.answered', 'call.completed'], 30_000);
    const done = events[3]!.data.object;
    assert.equal(done.hangup_cause, 'normal_clearing');
    assert.equal(done.hangup_source, 'callee');
    assert.equal(done.sip_status, 200);
    assert.ok(done.duration_seconds >= 7, `talk time ${done.duration_seconds}`);
    await sippOk(sipp);

    const wav = await lv.recordingOf(call.id);
    assert.equal(wav.channels, 2);
    // Outbound: the callee (SIPp) is channel 1.
    const { correlation, lag } = matchAudio(sippAudio(), wav.samples[1]!);
    assert.ok(lag >= 0, `the recording misses the first ${-lag} samples of what SIPp sent`);
    assert.ok(correlation > 0.99, `recorded callee channel vs SIPp's audio: correlation ${correlation}`);
  });

  test('early media (183 with SDP), then a re-INVITE and an UPDATE mid-call: each answered 200 with the same media; the call and its recording go on', async () => {
    const sipp = await runSipp({ scenario: 'uas-early-refresh.xml', port: trunkPort });
    const call = await place({ record: true });
    const events = await waitForTypes(lv.receiver, call.id, ['call.queued', 'call.ringing', 'call.answered', 'call.completed'], 30_000);
    const done = events[3]!.data.object;
    assert.deepEqual([done.status, done.hangup_cause, done.hangup_source], ['completed', 'normal_clearing', 'callee'], 'SIPp hung up, not a refresh failure');
    assert.equal(done.sip_status, 200);
    await sippOk(sipp); // SIPp checked that the re-INVITE's 200 carries our SDP and the UPDATE got its 200

    // SIPp's stream began with the 183 and went on through both refreshes: what it sent from
    // 3 s on (after the re-INVITE and the UPDATE) is in the recording, unbroken.
    const afterRefresh = sippAudio().subarray(3 * 8000, Math.floor(6.5 * 8000));
    const wav = await lv.recordingOf(call.id);
    const { correlation } = matchAudio(afterRefresh, wav.samples[1]!, 5 * 8000);
    assert.ok(correlation > 0.99, `the callee's audio after the refreshes vs SIPp's: correlation ${correlation}`);
  });

  // issue 10.18: calls carry the carrier's code (the SIP status) once real carriers exist.
  test('busy: 486 with a Q.850 reason makes the call busy (user_busy) and shows the SIP code', async () => {
    const sipp = await runSipp({ scenario: 'uas-busy.xml', port: trunkPort });
    const call = await place();
    const events = await waitForTypes(lv.receiver, call.id, ['call.queued', 'call.busy', 'call.completed']);
    assert.equal(events[1]!.data.object.hangup_cause, 'user_busy');
    assert.equal(events[1]!.data.object.sip_status, 486);
    assert.equal(events[1]!.data.object.failure.carrier_code, '486', 'failure carries the carrier\'s own code');
    assert.equal((await live().get(`/v1/calls/${call.id}`)).body.sip_status, 486);
    await sippOk(sipp);
  });

  test('ringing past the timeout: we CANCEL, the call is no_answer', async () => {
    const sipp = await runSipp({ scenario: 'uas-ring-cancel.xml', port: trunkPort });
    const call = await place({ timeout: 1 });
    const events = await waitForTypes(lv.receiver, call.id, ['call.queued', 'call.ringing', 'call.no_answer', 'call.completed']);
    assert.equal(events[2]!.data.object.hangup_cause, 'no_answer');
    await sippOk(sipp);
    assert.equal((await live().get(`/v1/calls/${call.id}`)).body.sip_status, 487);
  });

  test('a trunk silent past the ring timeout: the call is no_answer at once, and the CANCEL goes when it rings at last', async () => {
    const sipp = await runSipp({ scenario: 'uas-late-ring.xml', port: trunkPort });
    const call = await place({ timeout: 1 });
    const events = await waitForTypes(lv.receiver, call.id, ['call.queued', 'call.no_answer', 'call.completed']);
    assert.equal(events[1]!.data.object.hangup_cause, 'no_answer');
    assert.equal(events[1]!.data.object.sip_status, 487);
    // SIPp still holds its 180 back: the call ended at its ring timeout, not when the trunk
    // finally spoke (nor at Timer B, 32 s), yet the INVITE transaction is still ours to CANCEL.
    assert.equal(sipp.process.exitCode, null, 'the call ended only after the trunk rang');
    await sippOk(sipp);
  });

  test('hanging up a ringing call through the API cancels it on the trunk', async () => {
    const sipp = await runSipp({ scenario: 'uas-ring-cancel.xml', port: trunkPort });
    const call = await place();
    await lv.receiver.waitForEvent('call.ringing', call.id);
    const hung = await live().post(`/v1/calls/${call.id}/hangup`);
    assert.equal(hung.status, 200);
    assert.equal(hung.body.status, 'canceled');
    await sippOk(sipp);
    await waitForTypes(lv.receiver, call.id, ['call.queued', 'call.ringing', 'call.canceled', 'call.completed']);
  });

  test('the trunk demands digest auth: answered with the file\'s credentials; an API hangup sends BYE', async () => {
    const sipp = await runSipp({ scenario: 'uas-digest.xml', port: trunkPort });
    const call = await place();
    await lv.receiver.waitForEvent('call.answered', call.id, 15_000);
    const hung = await live().post(`/v1/calls/${call.id}/hangup`);
    assert.equal(hung.status, 200);
    assert.equal(hung.body.status, 'completed');
    assert.equal(hung.body.hangup_source, 'caller');
    await sippOk(sipp);
  });
});

describe('call flows on live calls (SIPp echoes what it hears)', { skip: !hasSipp }, () => {
  test('say, pause, say: the far end hears the embedded text-to-speech, then the flow hangs up', async () => {
    const sipp = await runSipp({ scenario: 'uas-answer-echo.xml', port: trunkPort, args: ['-rtp_echo'] });
    const greeting = 'Thank you for calling. Your order has shipped.';
    const call = await place({ record: true, flow: [{ say: { text: greeting } }, { pause: { seconds: 1 } }, { say: { text: 'Goodbye.', language: 'en-GB' } }] });
    const events = await waitForTypes(lv.receiver, call.id, ['call.queued', 'call.ringing', 'call.answered', 'call.completed'], 60_000);
    const done = events[3]!.data.object;
    assert.equal(done.hangup_source, 'caller', 'the flow ran out, so our side hung up');
    await sippOk(sipp);

    const flow = await live().get(`/v1/calls/${call.id}/flow`);
    assert.equal(flow.status, 200, JSON.stringify(flow.body));
    assert.deepEqual(flow.body.log.map((entry: { verb: string; result: { reason: string } }) => [entry.verb, entry.result.reason]),
      [['say', 'finished'], ['pause', 'finished'], ['say', 'finished']]);

    const wav = await lv.recordingOf(call.id);
    // What the engine would say, on the line (µ-law): it is what we sent (caller, channel 0)
    // and, echoed by SIPp, what the far end heard (callee, channel 1).
    const tts = new EmbeddedTextToSpeech();
    const spoken = await tts.synthesize(greeting, { language: 'en-US' });
    await tts.close();
    const line = decodeG711('PCMU', encodeG711('PCMU', spoken));
    const sent = matchAudio(line, wav.samples[0]!, 80_000);
    assert.ok(sent.correlation > 0.99, `what we sent vs the prompt: correlation ${sent.correlation}`);
    const heard = matchAudio(line, wav.samples[1]!, 80_000);
    // The echo crossed SIPp and our jitter buffer twice more: on a loaded machine a packet
    // that comes back too late is concealed as silence, so this path is held to 0.98.
    assert.ok(heard.correlation > 0.98, `what the far end heard vs the prompt: correlation ${heard.correlation}`);
    assert.ok(heard.lag > sent.lag, 'the echo comes back after it was sent');
  });
});

describe('blind transfer by REFER (SIPp as the trunk)', { skip: !hasSipp }, () => {
  test('accepted: NOTIFY 200 sipfrag makes call.transferred, and we leave the call with BYE', async () => {
    const sipp = await runSipp({ scenario: 'uas-refer.xml', port: trunkPort });
    const call = await place();
    await lv.receiver.waitForEvent('call.answered', call.id, 15_000);
    const res = await live().post(`/v1/calls/${call.id}/transfer`, { to: '+14155550100' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const events = await waitForTypes(lv.receiver, call.id, ['call.queued', 'call.ringing', 'call.answered', 'call.transfer_started', 'call.transferred', 'call.completed'], 20_000);
    assert.equal(events[3]!.data.object.transfers[0].status, 'pending');
    assert.equal(events[4]!.data.object.transfers[0].status, 'completed');
    assert.equal(events[5]!.data.object.hangup_source, 'system');
    await sippOk(sipp);
  });

  test('the target is busy: call.transfer_failed, and the call is still up until we hang up', async () => {
    const sipp = await runSipp({ scenario: 'uas-refer-busy.xml', port: trunkPort });
    const call = await place();
    await lv.receiver.waitForEvent('call.answered', call.id, 15_000);
    await live().post(`/v1/calls/${call.id}/transfer`, { to: '+14155550100' });
    const failed = await lv.receiver.waitForEvent('call.transfer_failed', call.id, 20_000);
    assert.equal(failed.data.object.transfers[0].status, 'busy');
    assert.equal((await live().get(`/v1/calls/${call.id}`)).body.status, 'in_progress');
    const hung = await live().post(`/v1/calls/${call.id}/hangup`);
    assert.equal(hung.body.status, 'completed');
    await sippOk(sipp);
  });
});

describe('switchboard carriers check probes the SIP trunk', { skip: !hasSipp }, () => {
  test('an OPTIONS to the trunk is answered: one ok row for the trunk', async () => {
    const sipp = await runSipp({ scenario: 'uas-options.xml', port: trunkPort });
    const checked = await lv.cli('carriers', 'check', '--json');
    assert.equal(checked.status, 0, checked.stderr + checked.stdout);
    const report = JSON.parse(checked.stdout);
    assert.equal(report.valid, true);
    assert.equal(report.links.length, 1);
    assert.equal(report.links[0].name, 'sipp');
    assert.equal(report.links[0].kind, 'sip');
    assert.equal(report.links[0].ok, true, JSON.stringify(report.links[0]));
    assert.match(report.links[0].detail, /OPTIONS answered 200/);
    await sippOk(sipp);
  });
});
