// SIP text handling on its own: parsing what real peers send (compact headers, folding,
// lists), TCP framing, SDP negotiation, digest answers (RFC 2617's worked example) and
// the mapping of failures to call statuses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { frameLength, parseSipMessage, serializeSipMessage } from '../../src/carriers/sip/message.ts';
import { parseNameAddr, parseUri, parseVia } from '../../src/carriers/sip/headers.ts';
import { buildSdp, negotiate, parseSdp, SdpError } from '../../src/carriers/sip/sdp.ts';
import { answerChallenge, parseChallenge } from '../../src/carriers/sip/digest.ts';
import { failureOutcome } from '../../src/carriers/sip/causes.ts';

const INVITE = [
  'INVITE sip:+15550001111@example.com SIP/2.0',
  'v: SIP/2.0/UDP 10.0.0.1:5060;branch=z9hG4bKabc;rport, SIP/2.0/TCP proxy.example.com;branch=z9hG4bKdef',
  'f: "Alice, A." <sip:alice@example.com>;tag=1928',
  't: <sip:+15550001111@example.com>',
  'i: a84b4c76e66710',
  'CSeq: 314159 INVITE',
  'Record-Route: <sip:p1.example.com;lr>,',
  ' <sip:p2.example.com;lr>',
  'm: <sip:alice@10.0.0.1:5060>',
  'c: application/sdp',
  'l: 4',
  '',
  'v=0\r\nEXTRA',
].join('\r\n');

test('parses compact forms, folded lines, header lists and the body up to Content-Length', () => {
  const message = parseSipMessage(INVITE);
  assert.equal(message.kind, 'request');
  if (message.kind !== 'request') return;
  assert.equal(message.method, 'INVITE');
  assert.equal(message.headers.getAll('via').length, 2);
  assert.equal(parseVia(message.headers.get('via')!).params.branch, 'z9hG4bKabc');
  assert.deepEqual(message.headers.getAll('record-route'), ['<sip:p1.example.com;lr>', '<sip:p2.example.com;lr>']);
  assert.equal(parseNameAddr(message.headers.get('from')!).display, 'Alice, A.');
  assert.equal(parseNameAddr(message.headers.get('from')!).params.tag, '1928');
  assert.equal(message.body, 'v=0\r');
  const again = parseSipMessage(serializeSipMessage(message));
  assert.equal(again.headers.get('call-id'), 'a84b4c76e66710');
  assert.match(serializeSipMessage(message).toString(), /\r\nContent-Length: 4\r\n/);
  assert.deepEqual(parseUri('sip:+1555@[2001:db8::1]:5070;transport=tcp'), { scheme: 'sip', user: '+1555', host: '2001:db8::1', port: 5070, params: { transport: 'tcp' } });
  assert.throws(() => parseSipMessage('HELLO\r\n\r\n'), /not a SIP start line/);
});

test('TCP framing finds message boundaries by Content-Length, including keep-alives', () => {
  const one = serializeSipMessage(parseSipMessage(INVITE));
  const stream = Buffer.concat([Buffer.from('\r\n'), one, one.subarray(0, 20)]);
  assert.equal(frameLength(stream), 2);
  assert.equal(frameLength(stream.subarray(2)), one.length);
  assert.equal(frameLength(stream.subarray(2 + one.length)), undefined);
});

test('SDP: negotiation keeps our preference and the peer\'s telephone-event type; no common codec is an error', () => {
  const offer = buildSdp({ address: '192.0.2.5', port: 40000, codecs: ['PCMA', 'PCMU'], dtmfPayloadType: 101, sessionId: 1, version: 1 });
  assert.match(offer, /m=audio 40000 RTP\/AVP 8 0 101\r\n/);
  const remote = parseSdp('v=0\r\nc=IN IP4 198.51.100.7\r\nm=audio 5004 RTP/AVP 18 0 96\r\na=rtpmap:96 telephone-event/8000\r\n');
  assert.deepEqual(negotiate(remote, ['PCMU', 'PCMA']), { address: '198.51.100.7', port: 5004, codec: 'PCMU', payloadType: 0, dtmfPayloadType: 96 });
  assert.throws(() => negotiate(parseSdp('v=0\r\nc=IN IP4 1.2.3.4\r\nm=audio 5004 RTP/AVP 18\r\n'), ['PCMU']), SdpError);
});

test('digest: RFC 2617\'s worked example gives its published response', () => {
  const challenge = parseChallenge('Digest realm="testrealm@host.com", qop="auth,auth-int", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", opaque="5ccc069c403ebaf9f0171e9517f40e41"');
  const answer = answerChallenge(challenge, { username: 'Mufasa', password: 'Circle Of Life' }, 'GET', '/dir/index.html', 1, '0a4f113b');
  assert.match(answer, /response="6629fae49393a05397450978507c4ef1"/);
  assert.match(answer, /nc=00000001/);
  assert.match(answer, /opaque="5ccc069c403ebaf9f0171e9517f40e41"/);
});

test('failures map to statuses and causes; a Q.850 Reason wins over the code', () => {
  assert.deepEqual(failureOutcome(486), { status: 'busy', cause: 'user_busy' });
  assert.deepEqual(failureOutcome(600), { status: 'busy', cause: 'user_busy' });
  assert.deepEqual(failureOutcome(480), { status: 'no_answer', cause: 'no_answer' });
  assert.deepEqual(failureOutcome(408), { status: 'no_answer', cause: 'no_answer' });
  assert.deepEqual(failureOutcome(487), { status: 'canceled', cause: 'originator_cancel' });
  assert.deepEqual(failureOutcome(404), { status: 'failed', cause: 'unallocated_number' });
  assert.deepEqual(failureOutcome(403), { status: 'failed', cause: 'call_rejected' });
  assert.deepEqual(failureOutcome(503), { status: 'failed', cause: 'network_out_of_order' });
  assert.deepEqual(failureOutcome(480, { protocol: 'Q.850', cause: 17 }), { status: 'busy', cause: 'user_busy' });
});
