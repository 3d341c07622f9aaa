// SDP answers as RFC 3264 wants them, without a network: one m-line per offered line, the
// direction of a hold answered, the far end's willingness to receive, and a re-offer answered
// in the same session with its version raised only when the answer changes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'sdp-transform';
import { answerDirection, answerReoffer, buildSdp, parseOffer, remoteMedia, SdpError } from '../../src/carriers/sip/sdp.ts';

const offer = (extra: string) => [
  'v=0', 'o=peer 9 1 IN IP4 198.51.100.7', 's=-', 'c=IN IP4 198.51.100.7', 't=0 0',
  'm=video 6000 RTP/AVP 96', 'a=rtpmap:96 VP8/90000',
  'm=audio 0 RTP/AVP 0', // disabled: not the stream we take
  'm=audio 5004 RTP/AVP 8 0 101', 'a=rtpmap:101 telephone-event/8000', extra,
  'm=application 7000 UDP/BFCP *',
].filter(Boolean).join('\r\n') + '\r\n';

const local = { address: '192.0.2.5', port: 40000, codecs: ['PCMU'] as const, dtmfPayloadType: 101, sessionId: 77, version: 1 };

test('the answer has one m-line per offered line: the first open audio line taken, the others refused with port 0', () => {
  const parsed = parseOffer(offer(''));
  assert.equal(parsed.audio.index, 2);
  const answer = parse(buildSdp(local, parsed));
  assert.deepEqual(answer.media.map((m) => [m.type, m.port, m.protocol, String(m.payloads)]), [
    ['video', 0, 'RTP/AVP', '96'], ['audio', 0, 'RTP/AVP', '0'], ['audio', 40000, 'RTP/AVP', '0 101'], ['application', 0, 'UDP/BFCP', '*'],
  ]);
  assert.equal(answer.media[2]!.direction, 'sendrecv');
  assert.deepEqual(remoteMedia(parsed.audio, ['PCMU']), { address: '198.51.100.7', port: 5004, codec: 'PCMU', payloadType: 0, dtmfPayloadType: 101, sending: true });
});

test('hold offers are answered with the mirrored direction, and then we send nothing', () => {
  assert.deepEqual(['sendrecv', 'sendonly', 'recvonly', 'inactive'].map((d) => answerDirection(d as 'sendrecv')), ['sendrecv', 'recvonly', 'sendonly', 'inactive']);
  for (const [attribute, answered, sending] of [['a=sendonly', 'recvonly', false], ['a=inactive', 'inactive', false], ['a=recvonly', 'sendonly', true]] as const) {
    const parsed = parseOffer(offer(attribute));
    assert.equal(parse(buildSdp(local, parsed)).media[2]!.direction, answered, attribute);
    assert.equal(remoteMedia(parsed.audio, ['PCMU']).sending, sending, attribute);
  }
  // The session-level attribute applies to every stream; RFC 2543's hold is c=0.0.0.0.
  assert.equal(parseOffer('v=0\r\nc=IN IP4 1.2.3.4\r\nt=0 0\r\na=inactive\r\nm=audio 5004 RTP/AVP 0\r\n').audio.direction, 'inactive');
  assert.equal(remoteMedia(parseOffer('v=0\r\nc=IN IP4 0.0.0.0\r\nt=0 0\r\nm=audio 5004 RTP/AVP 0\r\n').audio, ['PCMU']).sending, false);
});

test('a re-offer is answered in the same session; the version goes up only when the answer changes', () => {
  const first = buildSdp(local, parseOffer(offer('')));
  const refresh = answerReoffer(first, offer(''), ['PCMU', 'PCMA']);
  assert.equal(refresh.sdp, first, 'a refresh changes nothing');
  const held = answerReoffer(first, offer('a=sendonly'), ['PCMU', 'PCMA']);
  const heldSdp = parse(held.sdp);
  assert.deepEqual([heldSdp.origin.sessionId, heldSdp.origin.sessionVersion, heldSdp.media[2]!.port, heldSdp.media[2]!.direction], [77, 2, 40000, 'recvonly']);
  assert.equal(held.media.sending, false);
  const resumed = parse(answerReoffer(held.sdp, offer('a=sendrecv'), ['PCMU', 'PCMA']).sdp);
  assert.deepEqual([resumed.origin.sessionVersion, resumed.media[2]!.direction], [3, 'sendrecv']);
  // The codec in use stays first: the far end lists both, we keep PCMA.
  assert.equal(answerReoffer(first, offer(''), ['PCMA', 'PCMU']).media.codec, 'PCMA');
  assert.throws(() => answerReoffer(first, 'v=0\r\nc=IN IP4 1.2.3.4\r\nt=0 0\r\nm=video 5000 RTP/AVP 96\r\n', ['PCMU']), SdpError);
});
