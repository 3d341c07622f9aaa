// The Kamailio dispatcher edge that docs/live-voice.md ("Kamailio as the SIP edge") gives
// operators, run exactly as documented (test/helpers/kamailio-dispatcher.ts reads its
// kamailio.cfg and dispatcher.list blocks from the document): SIPp, as the carrier, calls one
// of our live numbers through it; the dispatcher picks the Switchboard node from its list and
// Record-Routes the dialog, so SIPp's ACK and our BYE follow the route set through it. The
// node takes only the edge's address as an inbound source. One node: the list's format is
// the same for any number of them, and several nodes are tested in test/sip/node-routing.test.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { freeUdpPort, peerAvailable, runSipp, sippFinalResponse } from '../helpers/sipp.ts';
import { relayedRequests, type Kamailio } from '../helpers/kamailio.ts';
import { startDispatcher } from '../helpers/kamailio-dispatcher.ts';
import { startLiveVoice, type LiveVoice } from '../helpers/live-voice.ts';

const hasPeers = peerAvailable('kamailio') && peerAvailable('sipp');
const OURS = '+14155550166';
const EDGE_HOST = '127.0.0.6';

let lv: LiveVoice;
let edge: (Kamailio & { dir: string }) | undefined;
let edgePort: number;

before(async () => {
  if (!hasPeers) return;
  edgePort = await freeUdpPort();
  lv = await startLiveVoice({
    rtp: [49500, 49598],
    trunks: [`{ name: carrier, host: 127.0.0.1, port: ${await freeUdpPort()}, inbound_sources: [${EDGE_HOST}/32], codecs: [PCMU] }`],
    numbers: { [OURS]: 'carrier' },
  });
  edge = await startDispatcher({ host: EDGE_HOST, port: edgePort, nodes: [`127.0.0.1:${lv.sipPort}`] });
});

after(async () => {
  await edge?.stop();
  await lv?.close();
});

describe('issue 13: Kamailio\'s dispatcher as the SIP edge, configured as docs/live-voice.md says', { skip: !hasPeers }, () => {
  test('a carrier\'s call to the edge reaches the node from the dispatcher list; ACK and our BYE follow the Record-Route through it', async () => {
    const mark = edge!.log().length;
    const sipp = await runSipp({ scenario: 'uac-inbound-via-edge.xml', remote: `${EDGE_HOST}:${edgePort}`, args: ['-s', OURS] });
    const result = await sipp.done;
    assert.equal(result.code, 0, `${result.errors}\nkamailio said:\n${edge!.log()}`);
    const [call] = (await lv.live().get(`/v1/calls?to=${encodeURIComponent(OURS)}`)).body.data;
    assert.ok(call, 'the account sees the call');
    assert.deepEqual([call.direction, call.from, call.to], ['inbound', '+15557770000', OURS]);
    const completed = await lv.receiver.waitForEvent('call.completed', call.id, 30_000);
    assert.equal(completed.data.object.hangup_source, 'callee', 'our side hung up (the number has no voice set-up: "not set up", then goodbye)');
    // What the edge relayed: SIPp's INVITE (dispatched to the node) and ACK, then our BYE by its Record-Route.
    assert.deepEqual(relayedRequests(edge!.log(), mark).map((r) => r.method), ['INVITE', 'ACK', 'BYE']);
  });

  test('a call that does not come through the edge is refused by the node with 403 (only the edge is an inbound source, and no trunk takes passwords)', async () => {
    const sipp = await runSipp({ scenario: 'uac-refused.xml', remote: `127.0.0.1:${lv.sipPort}`, args: ['-s', OURS] });
    assert.equal(await sippFinalResponse(sipp), '403');
    assert.equal((await lv.live().get(`/v1/calls?to=${encodeURIComponent(OURS)}`)).body.data.length, 1, 'only the call through the edge');
  });
});
