// Our SIP user agent placing calls to SIPp acting as the trunk, over real UDP and TCP on
// 127.0.0.1: an answer that streams audio (recorded and compared with what SIPp sent),
// busy, ring until we CANCEL, and digest authentication (right and wrong password).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SipTransport, type TransportName } from '../../src/carriers/sip/transport.ts';
import { UserAgent } from '../../src/carriers/sip/user-agent.ts';
import { buildSdp, negotiate, parseSdp } from '../../src/carriers/sip/sdp.ts';
import { parseReason } from '../../src/carriers/sip/headers.ts';
import { failureOutcome } from '../../src/carriers/sip/causes.ts';
import { MediaEngine } from '../../src/carriers/rtp/engine.ts';
import { decodeG711 } from '../../src/carriers/rtp/g711.ts';
import { decodeWav } from '../../src/media/wav.ts';
import { readRtpPcap } from '../helpers/pcap.ts';
import { matchAudio } from '../helpers/audio-match.ts';
import { peerAvailable, runSipp } from '../helpers/sipp.ts';

const hasSipp = peerAvailable('sipp');
const FAST = { t1: 100, t2: 400, linger: 2000 };

let transport: SipTransport;
let ua: UserAgent;
let engine: MediaEngine;
let dir: string;

before(async () => {
  transport = new SipTransport({ host: '127.0.0.1', udpPort: 0, tcpPort: 0 });
  await transport.start();
  ua = new UserAgent({ transport, publicHost: '127.0.0.1', timers: FAST });
  engine = new MediaEngine({ host: '127.0.0.1', range: { min: 43000, max: 43998 } });
  dir = mkdtempSync(join(tmpdir(), 'sip-uac-'));
});

after(async () => {
  ua.shutdown();
  await transport.stop();
  await engine.shutdown();
  rmSync(dir, { recursive: true, force: true });
});

async function offer(leg: string) {
  const port = await engine.open(leg);
  return buildSdp({ address: '127.0.0.1', port, codecs: ['PCMU', 'PCMA'], dtmfPayloadType: 101, sessionId: 1, version: 1 });
}

function call(sippPort: number, sdp: string, transportName: TransportName = 'UDP', credentials?: { username: string; password: string }) {
  return ua.invite({
    uri: `sip:+15550001111@127.0.0.1:${sippPort}`,
    peer: { transport: transportName, address: '127.0.0.1', port: sippPort },
    from: { user: '+15559990000', host: '127.0.0.1' },
    to: `sip:+15550001111@127.0.0.1:${sippPort}`,
    sdp,
    credentials,
  });
}

for (const transportName of ['UDP', 'TCP'] as const) {
  test(`over ${transportName}: SIPp answers and streams audio; the recording matches what it sent; SIPp hangs up with BYE`, { skip: !hasSipp }, async () => {
    const sipp = await runSipp({ scenario: 'uas-answer-play.xml', transport: transportName === 'UDP' ? 'u1' : 't1' });
    const leg = `play-${transportName}`;
    const invite = call(sipp.port, await offer(leg), transportName);
    const provisional: number[] = [];
    invite.on('provisional', (response) => provisional.push(response.status));
    const outcome = await invite.outcome;
    assert.equal(outcome.kind, 'answered');
    if (outcome.kind !== 'answered') return;
    const media = negotiate(parseSdp(outcome.response.body), ['PCMU', 'PCMA']);
    assert.equal(media.codec, 'PCMA', 'SIPp offered only A-law in its answer');
    assert.equal(media.dtmfPayloadType, 101);
    await engine.setRemote(leg, media);
    await engine.startRecording(leg, join(dir, `${leg}.wav`));
    const hungUp = new Promise((resolve) => outcome.dialog.once('bye', resolve));
    await hungUp;
    await engine.stopRecording(leg);
    const stats = await engine.close(leg);

    const sipp_ = await sipp.done;
    assert.equal(sipp_.code, 0, sipp_.errors);
    assert.ok(provisional.includes(180));
    assert.equal(stats?.packetsLost, 0);

    const sent = readRtpPcap('/usr/share/sip-tester/g711a.pcap').map((p) => decodeG711('PCMA', p.payload));
    const reference = new Int16Array(sent.reduce((n, p) => n + p.length, 0));
    sent.reduce((at, p) => (reference.set(p, at), at + p.length), 0);
    const wav = decodeWav(readFileSync(join(dir, `${leg}.wav`)));
    const { correlation } = matchAudio(reference, wav.samples[0]!);
    assert.ok(correlation > 0.99, `recording vs SIPp's audio: correlation ${correlation}`);
  });
}

test('SIPp says busy (486 with Q.850 cause 17): the call is busy, cause user_busy, and SIPp gets its ACK', { skip: !hasSipp }, async () => {
  const sipp = await runSipp({ scenario: 'uas-busy.xml' });
  const outcome = await call(sipp.port, await offer('busy')).outcome;
  await engine.close('busy');
  assert.equal(outcome.kind, 'failed');
  assert.equal(outcome.response.status, 486);
  assert.deepEqual(failureOutcome(outcome.response.status, parseReason(outcome.response.headers.get('reason'))), { status: 'busy', cause: 'user_busy' });
  const result = await sipp.done;
  assert.equal(result.code, 0, result.errors);
});

test('SIPp rings until we CANCEL: 200 to the CANCEL, 487 to the INVITE, ACKed; the call is canceled', { skip: !hasSipp }, async () => {
  const sipp = await runSipp({ scenario: 'uas-ring-cancel.xml' });
  const invite = call(sipp.port, await offer('ring'));
  await Promise.race([
    new Promise((resolve) => invite.once('provisional', resolve)),
    sipp.done.then((r) => Promise.reject(new Error(`SIPp exited before ringing: ${r.errors}`))),
  ]);
  ua.cancel(invite);
  const outcome = await invite.outcome;
  await engine.close('ring');
  assert.equal(outcome.kind, 'failed');
  assert.equal(outcome.response.status, 487);
  assert.deepEqual(failureOutcome(487), { status: 'canceled', cause: 'originator_cancel' });
  const result = await sipp.done;
  assert.equal(result.code, 0, result.errors);
});

test('SIPp demands digest auth: the right password is accepted by SIPp\'s own verifier and we hang up with BYE', { skip: !hasSipp }, async () => {
  const sipp = await runSipp({ scenario: 'uas-digest.xml' });
  const outcome = await call(sipp.port, await offer('auth'), 'UDP', { username: 'trunkuser', password: 's3cret-pass' }).outcome;
  assert.equal(outcome.kind, 'answered');
  if (outcome.kind !== 'answered') return;
  assert.equal(negotiate(parseSdp(outcome.response.body), ['PCMU', 'PCMA']).codec, 'PCMU');
  const bye = await outcome.dialog.bye();
  assert.equal(bye?.status, 200);
  await engine.close('auth');
  const result = await sipp.done;
  assert.equal(result.code, 0, result.errors);
});

test('a wrong digest password is refused (403 from SIPp\'s verifier), not retried forever', { skip: !hasSipp }, async () => {
  const sipp = await runSipp({ scenario: 'uas-digest.xml' });
  const outcome = await call(sipp.port, await offer('badauth'), 'UDP', { username: 'trunkuser', password: 'wrong' }).outcome;
  await engine.close('badauth');
  assert.equal(outcome.kind, 'failed');
  assert.equal(outcome.response.status, 403);
  assert.deepEqual(failureOutcome(403), { status: 'failed', cause: 'call_rejected' });
  // SIPp's scenario took the 403 branch and got our ACK for it.
  const result = await sipp.done;
  assert.equal(result.code, 0, result.errors);
});
