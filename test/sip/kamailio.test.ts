// Live calls through Kamailio as the carrier's edge proxy, with SIPp behind it as the callee:
// the proxy challenges our INVITE with 407 (we answer with the trunk's credentials),
// Record-Routes the dialog, and SIPp checks that our ACK and BYE come through the proxy
// (its Via on top), so in-dialog requests follow the route set both ways.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { waitForTypes } from '../voice/voice-helpers.ts';
import { freeUdpPort, peerAvailable, runSipp, type SippRun } from '../helpers/sipp.ts';
import { relayedRequests, startKamailio, type Kamailio } from '../helpers/kamailio.ts';
import { startLiveVoice, type LiveVoice } from '../helpers/live-voice.ts';

const hasPeers = peerAvailable('kamailio') && peerAvailable('sipp');
const FROM = '+14155550142';
const FROM_WRONG_PASSWORD = '+14155550143';
const TO = '+14155550199';
const PROXY_HOST = '127.0.0.4';

let lv: LiveVoice;
let kamailio: Kamailio | undefined;
let sippPort: number;

before(async () => {
  if (!hasPeers) return;
  sippPort = await freeUdpPort();
  const proxyPort = await freeUdpPort();
  kamailio = await startKamailio({
    host: PROXY_HOST, port: proxyPort, forwardTo: { host: '127.0.0.1', port: sippPort },
    realm: 'edge.kamailio.test', username: 'trunkuser', password: 'pr0xy-pass',
  });
  process.env.KAMAILIO_TRUNK_PASSWORD = 'pr0xy-pass';
  process.env.KAMAILIO_WRONG_PASSWORD = 'not-the-password';
  lv = await startLiveVoice({
    rtp: [46400, 46498],
    trunks: [
      `{ name: edge, host: ${PROXY_HOST}, port: ${proxyPort}, username: trunkuser, password: "env:KAMAILIO_TRUNK_PASSWORD", codecs: [PCMU] }`,
      `{ name: edge-wrong, host: ${PROXY_HOST}, port: ${proxyPort}, username: trunkuser, password: "env:KAMAILIO_WRONG_PASSWORD", codecs: [PCMU] }`,
    ],
    numbers: { [FROM]: 'edge', [FROM_WRONG_PASSWORD]: 'edge-wrong' },
  });
});

after(async () => {
  await kamailio?.stop();
  await lv?.close();
});

const live = () => lv.live();

async function place(from = FROM): Promise<string> {
  const res = await live().post('/v1/calls', { from, to: TO });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.id as string;
}

async function sippOk(sipp: SippRun) {
  const result = await sipp.done;
  assert.equal(result.code, 0, `${result.errors}\nkamailio said:\n${kamailio!.log()}`);
}

/** The requests Kamailio relayed, as "METHOD" in order (its config logs each one). */
function relayed(): string[] {
  return relayedRequests(kamailio!.log()).map((r) => r.method);
}

describe('Kamailio as the edge proxy (407 proxy auth, Record-Route), SIPp behind it', { skip: !hasPeers }, () => {
  test('answered after a 407; the callee hangs up with a BYE that reaches us through the proxy', async () => {
    const before = relayed().length;
    const sipp = await runSipp({ scenario: 'uas-proxied-callee-bye.xml', port: sippPort });
    const callId = await place();
    const events = await waitForTypes(lv.receiver, callId, ['call.queued', 'call.ringing', 'call.answered', 'call.completed'], 20_000);
    const done = events[3]!.data.object;
    assert.equal(done.hangup_source, 'callee');
    assert.equal(done.hangup_cause, 'normal_clearing');
    assert.equal(done.sip_status, 200);
    await sippOk(sipp);
    // INVITE (challenged), INVITE with credentials, our ACK, SIPp's BYE: all through the proxy.
    assert.deepEqual(relayed().slice(before), ['INVITE', 'INVITE', 'ACK', 'BYE']);
  });

  test('answered after a 407; our API hang-up sends a BYE along the route set (through the proxy)', async () => {
    const before = relayed().length;
    const sipp = await runSipp({ scenario: 'uas-proxied-caller-bye.xml', port: sippPort });
    const callId = await place();
    await lv.receiver.waitForEvent('call.answered', callId, 20_000);
    const hung = await live().post(`/v1/calls/${callId}/hangup`);
    assert.equal(hung.status, 200);
    assert.equal(hung.body.status, 'completed');
    assert.equal(hung.body.hangup_source, 'caller');
    await sippOk(sipp);
    assert.deepEqual(relayed().slice(before), ['INVITE', 'INVITE', 'ACK', 'BYE']);
  });

  test('a wrong proxy password fails the call (call_rejected, SIP 407) after a bounded number of tries, not a loop', async () => {
    const before = relayed().length;
    const callId = await place(FROM_WRONG_PASSWORD);
    const events = await waitForTypes(lv.receiver, callId, ['call.queued', 'call.failed', 'call.completed'], 20_000);
    assert.equal(events[1]!.data.object.sip_status, 407);
    assert.equal(events[1]!.data.object.hangup_cause, 'call_rejected');
    const invites = relayed().slice(before).filter((m) => m === 'INVITE').length;
    assert.ok(invites >= 2 && invites <= 4, `the proxy saw ${invites} INVITEs`);
  });
});
