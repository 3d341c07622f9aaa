// Live calls through the HTTP API over a SIP trunk played by SIPp on 127.0.0.1: the
// customer sees statuses, hangup causes, the SIP code and webhooks, and a recording made
// from the real audio SIPp streamed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer, type CreatedAccount } from '../helpers/server.ts';
import type { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { subscribedReceiver, waitForTypes } from '../voice/voice-helpers.ts';
import { freeUdpPort, peerAvailable, runSipp, type SippRun } from '../helpers/sipp.ts';
import { decodeWav } from '../../src/media/wav.ts';
import { decodeG711 } from '../../src/carriers/rtp/g711.ts';
import { readRtpPcap } from '../helpers/pcap.ts';
import { matchAudio } from '../helpers/audio-match.ts';
import { EmbeddedTextToSpeech } from '../../src/carriers/speech/text-to-speech.ts';
import { encodeG711 } from '../../src/carriers/rtp/g711.ts';

const hasSipp = peerAvailable('sipp');
const FROM = '+14155550142';
const TO = '+14155550199';

let t: TestServer;
let acct: CreatedAccount;
let receiver: WebhookReceiver;
let trunkPort: number;
let carriersFile: string;

function cli(...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const env: Record<string, string | undefined> = { ...process.env, SWITCHBOARD_DATA_DIR: t.store.dataDir, SWITCHBOARD_CARRIERS_FILE: carriersFile };
  if (t.store.databaseUrl) env.DATABASE_URL = t.store.databaseUrl;
  else delete env.DATABASE_URL;
  const child = spawn(process.execPath, ['bin/switchboard.js', ...args], { env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => { stdout += d; });
  child.stderr.on('data', (d) => { stderr += d; });
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })));
}

before(async () => {
  if (!hasSipp) return;
  trunkPort = await freeUdpPort();
  const sipPort = await freeUdpPort();
  process.env.SIPP_TRUNK_PASSWORD = 's3cret-pass';
  carriersFile = join(mkdtempSync(join(tmpdir(), 'sb-sip-')), 'carriers.yaml');
  writeFileSync(carriersFile, [
    'sip:',
    `  listen: { host: 127.0.0.1, udp_port: ${sipPort} }`,
    '  public_host: 127.0.0.1',
    '  rtp: { port_min: 45000, port_max: 45998 }',
    '  trunks:',
    `    - { name: sipp, host: 127.0.0.1, port: ${trunkPort}, username: trunkuser, password: "env:SIPP_TRUNK_PASSWORD", codecs: [PCMU, PCMA], transfer: refer }`,
    '',
  ].join('\n'));
  t = await startTestServer({ SWITCHBOARD_CARRIERS_FILE: carriersFile });
  acct = await t.createAccount('growth');
  const imported = await cli('numbers', 'import', '--account', acct.account.id, '--number', FROM, '--trunk', 'sipp', '--json');
  assert.equal(imported.status, 0, imported.stderr);
  receiver = await subscribedReceiver(t, acct.keys.live);
});

after(async () => {
  await receiver?.close();
  await t?.close();
});

const live = () => t.as(acct.keys.live);

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
    const events = await waitForTypes(receiver, call.id, ['call.queued', 'call.ringing', 'call.answered', 'call.completed'], 30_000);
    const done = events[3]!.data.object;
    assert.equal(done.hangup_cause, 'normal_clearing');
    assert.equal(done.hangup_source, 'callee');
    assert.equal(done.sip_status, 200);
    assert.ok(done.duration_seconds >= 7, `talk time ${done.duration_seconds}`);
    await sippOk(sipp);

    const ready = await receiver.waitForEvent('call.recording.ready', undefined, 30_000);
    const recordingId = ready.data.object.id;
    assert.equal(ready.data.object.call_id, call.id);
    const media = await fetch(`${t.url}/v1/recordings/${recordingId}/media`, { headers: { authorization: `Bearer ${acct.keys.live}` } });
    assert.equal(media.status, 200);
    const wav = decodeWav(Buffer.from(await media.arrayBuffer()));
    assert.equal(wav.channels, 2);
    const sent = readRtpPcap('/usr/share/sip-tester/g711a.pcap').map((p) => decodeG711('PCMA', p.payload));
    const reference = new Int16Array(sent.reduce((n, p) => n + p.length, 0));
    sent.reduce((at, p) => (reference.set(p, at), at + p.length), 0);
    // Outbound: the callee (SIPp) is channel 1.
    const { correlation, lag } = matchAudio(reference, wav.samples[1]!);
    assert.ok(lag >= 0, `the recording misses the first ${-lag} samples of what SIPp sent`);
    assert.ok(correlation > 0.99, `recorded callee channel vs SIPp's audio: correlation ${correlation}`);
  });

  test('busy: 486 with a Q.850 reason makes the call busy (user_busy) and shows the SIP code', async () => {
    const sipp = await runSipp({ scenario: 'uas-busy.xml', port: trunkPort });
    const call = await place();
    const events = await waitForTypes(receiver, call.id, ['call.queued', 'call.busy', 'call.completed']);
    assert.equal(events[1]!.data.object.hangup_cause, 'user_busy');
    assert.equal(events[1]!.data.object.sip_status, 486);
    assert.equal((await live().get(`/v1/calls/${call.id}`)).body.sip_status, 486);
    await sippOk(sipp);
  });

  test('ringing past the timeout: we CANCEL, the call is no_answer', async () => {
    const sipp = await runSipp({ scenario: 'uas-ring-cancel.xml', port: trunkPort });
    const call = await place({ timeout: 1 });
    const events = await waitForTypes(receiver, call.id, ['call.queued', 'call.ringing', 'call.no_answer', 'call.completed']);
    assert.equal(events[2]!.data.object.hangup_cause, 'no_answer');
    await sippOk(sipp);
    assert.equal((await live().get(`/v1/calls/${call.id}`)).body.sip_status, 487);
  });

  test('hanging up a ringing call through the API cancels it on the trunk', async () => {
    const sipp = await runSipp({ scenario: 'uas-ring-cancel.xml', port: trunkPort });
    const call = await place();
    await receiver.waitForEvent('call.ringing', call.id);
    const hung = await live().post(`/v1/calls/${call.id}/hangup`);
    assert.equal(hung.status, 200);
    assert.equal(hung.body.status, 'canceled');
    await sippOk(sipp);
    await waitForTypes(receiver, call.id, ['call.queued', 'call.ringing', 'call.canceled', 'call.completed']);
  });

  test('the trunk demands digest auth: answered with the file\'s credentials; an API hangup sends BYE', async () => {
    const sipp = await runSipp({ scenario: 'uas-digest.xml', port: trunkPort });
    const call = await place();
    await receiver.waitForEvent('call.answered', call.id, 15_000);
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
    const events = await waitForTypes(receiver, call.id, ['call.queued', 'call.ringing', 'call.answered', 'call.completed'], 60_000);
    const done = events[3]!.data.object;
    assert.equal(done.hangup_source, 'caller', 'the flow ran out, so our side hung up');
    await sippOk(sipp);

    const flow = await live().get(`/v1/calls/${call.id}/flow`);
    assert.equal(flow.status, 200, JSON.stringify(flow.body));
    assert.deepEqual(flow.body.log.map((entry: { verb: string; result: { reason: string } }) => [entry.verb, entry.result.reason]),
      [['say', 'finished'], ['pause', 'finished'], ['say', 'finished']]);

    const ofCall = (e: { type: string; data: { object: { call_id?: string } } }) => e.type === 'call.recording.ready' && e.data.object.call_id === call.id;
    const ready = (await receiver.waitFor((evs) => evs.some(ofCall), 30_000)).find(ofCall)!;
    const media = await fetch(`${t.url}/v1/recordings/${ready.data.object.id}/media`, { headers: { authorization: `Bearer ${acct.keys.live}` } });
    const wav = decodeWav(Buffer.from(await media.arrayBuffer()));
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
    await receiver.waitForEvent('call.answered', call.id, 15_000);
    const res = await live().post(`/v1/calls/${call.id}/transfer`, { to: '+14155550100' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const events = await waitForTypes(receiver, call.id, ['call.queued', 'call.ringing', 'call.answered', 'call.transferred', 'call.completed'], 20_000);
    assert.equal(events[3]!.data.object.transfers[0].status, 'completed');
    assert.equal(events[4]!.data.object.hangup_source, 'system');
    await sippOk(sipp);
  });

  test('the target is busy: call.transfer_failed, and the call is still up until we hang up', async () => {
    const sipp = await runSipp({ scenario: 'uas-refer-busy.xml', port: trunkPort });
    const call = await place();
    await receiver.waitForEvent('call.answered', call.id, 15_000);
    await live().post(`/v1/calls/${call.id}/transfer`, { to: '+14155550100' });
    const failed = await receiver.waitForEvent('call.transfer_failed', call.id, 20_000);
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
    const checked = await cli('carriers', 'check', '--json');
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
