// SIP over TLS with a real peer: Kamailio (tls module) as the carrier's TLS edge, SIPp behind
// it over UDP. We listen on TLS only, so every SIP message of these calls crosses a TLS
// connection: our INVITE, ACK and BYE to the edge (its certificate verified against the test
// CA, made here with openssl), and the edge's INVITE and BYE to us (ours verified by the
// edge). A trunk whose certificate does not carry the name we expect is refused before any
// SIP is sent: verification is on by default.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { freeTcpPort, freeUdpPort, peerAvailable, runSipp, type SippRun } from '../helpers/sipp.ts';
import { kamailioTlsAvailable, startKamailioTlsEdge } from '../helpers/kamailio-tls-edge.ts';
import { relayedRequests, type Kamailio } from '../helpers/kamailio.ts';
import { createTestCa } from '../helpers/test-ca.ts';
import { startLiveVoice, type LiveVoice } from '../helpers/live-voice.ts';
import { waitForTypes } from '../voice/voice-helpers.ts';
import { sippAudio } from '../helpers/pcap.ts';
import { matchAudio } from '../helpers/audio-match.ts';

const hasPeers = peerAvailable('kamailio') && peerAvailable('sipp') && peerAvailable('openssl') && kamailioTlsAvailable();
const FROM = '+14155550142';
const FROM_MISNAMED = '+14155550143';
const OURS = '+14155550177';
const TO = '+14155550199';
const EDGE_HOST = '127.0.0.4';

let lv: LiveVoice;
let edge: Kamailio | undefined;
let sippPort: number;
let edgeUdpPort: number;

before(async () => {
  if (!hasPeers) return;
  const ca = createTestCa();
  const edgeCert = ca.issue('edge', { ips: [EDGE_HOST] });
  const ourCert = ca.issue('switchboard', { ips: ['127.0.0.1'] });
  sippPort = await freeUdpPort();
  edgeUdpPort = await freeUdpPort();
  const edgeTlsPort = await freeTcpPort();
  const tlsPort = await freeTcpPort();
  edge = await startKamailioTlsEdge({
    host: EDGE_HOST, udpPort: edgeUdpPort, tlsPort: edgeTlsPort, ...edgeCert, caFile: ca.caFile,
    udpPeer: { host: '127.0.0.1', port: sippPort }, tlsPeer: { host: '127.0.0.1', port: tlsPort },
  });
  lv = await startLiveVoice({
    listen: `{ host: 127.0.0.1, tls_port: ${tlsPort} }`,
    sipLines: [`  tls: { cert_file: "${ourCert.certFile}", key_file: "${ourCert.keyFile}", ca_file: "${ca.caFile}" }`],
    rtp: [46800, 46898],
    trunks: [
      `{ name: edge, host: ${EDGE_HOST}, port: ${edgeTlsPort}, transport: tls, inbound_sources: [${EDGE_HOST}/32], codecs: [PCMU, PCMA] }`,
      `{ name: edge-misnamed, host: ${EDGE_HOST}, port: ${edgeTlsPort}, transport: tls, tls_server_name: sip.carrier.example }`,
    ],
    numbers: { [FROM]: 'edge', [FROM_MISNAMED]: 'edge-misnamed', [OURS]: 'edge' },
  });
});

after(async () => {
  await lv?.close();
  await edge?.stop();
});

async function place(from = FROM, body: Record<string, unknown> = {}): Promise<string> {
  const res = await lv.live().post('/v1/calls', { from, to: TO, ...body });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.id as string;
}

async function sippOk(sipp: SippRun) {
  const result = await sipp.done;
  assert.equal(result.code, 0, `${result.errors}\nthe edge said:\n${edge!.log()}`);
}

/** What the edge relayed since `from`, as "METHOD transport" (the transport it came in on). */
function relayed(from: number): string[] {
  return relayedRequests(edge!.log(), from).map((r) => `${r.method} ${r.transport}`);
}

describe('SIP over TLS through a Kamailio TLS edge, SIPp behind it', { skip: !hasPeers }, () => {
  test('outbound: answered over TLS, SIPp\'s audio recorded, and the callee\'s BYE reaches us over TLS', async () => {
    const mark = edge!.log().length;
    const sipp = await runSipp({ scenario: 'uas-edge-play.xml', port: sippPort });
    const callId = await place(FROM, { record: true });
    const events = await waitForTypes(lv.receiver, callId, ['call.queued', 'call.ringing', 'call.answered', 'call.completed'], 30_000);
    const done = events[3]!.data.object;
    assert.equal(done.hangup_source, 'callee');
    assert.equal(done.hangup_cause, 'normal_clearing');
    assert.equal(done.sip_status, 200);
    await sippOk(sipp);
    // Our INVITE and ACK came to the edge over TLS; SIPp's BYE over UDP, relayed to us over TLS (we listen on nothing else).
    assert.deepEqual(relayed(mark), ['INVITE tls', 'ACK tls', 'BYE udp']);

    const wav = await lv.recordingOf(callId);
    const { correlation, lag } = matchAudio(sippAudio(), wav.samples[1]!);
    assert.ok(lag >= 0, `the recording misses the first ${-lag} samples of what SIPp sent`);
    assert.ok(correlation > 0.99, `recorded callee channel vs SIPp's audio: correlation ${correlation}`);
  });

  test('outbound: our API hang-up sends the BYE over TLS along the route set', async () => {
    const mark = edge!.log().length;
    const sipp = await runSipp({ scenario: 'uas-proxied-caller-bye.xml', port: sippPort });
    const callId = await place();
    await lv.receiver.waitForEvent('call.answered', callId, 20_000);
    const hung = await lv.live().post(`/v1/calls/${callId}/hangup`);
    assert.equal(hung.status, 200);
    assert.equal(hung.body.status, 'completed');
    assert.equal(hung.body.hangup_source, 'caller');
    await sippOk(sipp);
    assert.deepEqual(relayed(mark), ['INVITE tls', 'ACK tls', 'BYE tls']);
  });

  test('inbound: the edge delivers the call over TLS (verifying our certificate), we answer, speak and hang up over TLS', async () => {
    const mark = edge!.log().length;
    const sipp = await runSipp({ scenario: 'uac-inbound-via-edge.xml', remote: `${EDGE_HOST}:${edgeUdpPort}`, args: ['-s', OURS] });
    await sippOk(sipp);
    const calls = await lv.live().get(`/v1/calls?to=${encodeURIComponent(OURS)}`);
    const [call] = calls.body.data;
    assert.ok(call, 'the account sees the call');
    assert.equal(call.direction, 'inbound');
    const completed = (await lv.receiver.waitForEvent('call.completed', call.id, 30_000)).data.object;
    assert.equal(completed.hangup_source, 'callee', 'our side hung up');
    assert.equal(completed.sip_status, 200);
    // SIPp's INVITE and ACK came over UDP (relayed to us over TLS); our BYE came over TLS.
    assert.deepEqual(relayed(mark), ['INVITE udp', 'ACK udp', 'BYE tls']);
  });

  test('a certificate that does not carry the trunk\'s name fails the call (503 naming the TLS error) before any SIP is sent', async () => {
    const mark = edge!.log().length;
    const callId = await place(FROM_MISNAMED);
    const events = await waitForTypes(lv.receiver, callId, ['call.queued', 'call.failed', 'call.completed'], 20_000);
    const failed = events[1]!.data.object;
    assert.equal(failed.sip_status, 503);
    assert.equal(failed.hangup_cause, 'network_out_of_order');
    assert.deepEqual(relayed(mark), []);
  });

  test('carriers check: the edge answers OPTIONS over TLS; the misnamed trunk fails with the certificate error', async () => {
    const checked = await lv.cli('carriers', 'check', '--json');
    assert.equal(checked.status, 1, checked.stderr + checked.stdout);
    const rows = Object.fromEntries(JSON.parse(checked.stdout).links.map((l: { name: string }) => [l.name, l]));
    assert.equal(rows.edge.ok, true, JSON.stringify(rows.edge));
    assert.match(rows.edge.detail, /OPTIONS answered 200/);
    assert.match(rows.edge.target, /^sip:127\.0\.0\.4:\d+;transport=tls$/);
    assert.equal(rows['edge-misnamed'].ok, false);
    assert.match(rows['edge-misnamed'].detail, /^TLS handshake with 127\.0\.0\.4:\d+ failed: .*sip\.carrier\.example/);
  });
});
