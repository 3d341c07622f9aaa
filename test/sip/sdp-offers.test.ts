// SDP offer/answer with a real peer (SIPp as the carrier): an offer of audio and video gets an
// answer with both m-lines, the video refused with port 0 (RFC 3264 section 6), and the call
// runs on the audio; a re-INVITE that holds the call (sendonly) is answered recvonly and our
// media stops until the call is taken off hold (section 8.4). The audio comes to the test's own
// socket, so what we send (and when we stop) is seen packet by packet.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createSocket, type Socket } from 'node:dgram';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'sdp-transform';
import { freeUdpPort, peerAvailable, runSipp } from '../helpers/sipp.ts';
import { startLiveVoice, type LiveVoice } from '../helpers/live-voice.ts';
import { parseRtp } from '../../src/carriers/rtp/packet.ts';
import { decodeG711 } from '../../src/carriers/rtp/g711.ts';

const hasSipp = peerAvailable('sipp');
const NUMBER = '+14155550177';

let lv: LiveVoice;

before(async () => {
  if (!hasSipp) return;
  lv = await startLiveVoice({
    rtp: [48600, 48698],
    trunks: [`{ name: carrier, host: 127.0.0.1, port: ${await freeUdpPort()}, inbound_sources: [127.0.0.1/32] }`],
    numbers: { [NUMBER]: 'carrier' },
  });
});

after(async () => {
  await lv?.close();
});

interface Arrival {
  sequence: number;
  /** The RTP timestamp: our media clock, which runs on while nothing is sent. */
  timestamp: number;
  payloadType: number;
  loudness: number;
}

/** A UDP socket on 127.0.0.1 that notes each RTP packet's place in time and how loud it is. */
async function rtpListener(): Promise<{ socket: Socket; port: number; arrivals: Arrival[] }> {
  const socket = createSocket('udp4');
  const arrivals: Arrival[] = [];
  socket.on('message', (datagram) => {
    const packet = parseRtp(datagram);
    if (!packet) return;
    const pcm = packet.payloadType === 0 ? decodeG711('PCMU', packet.payload) : new Int16Array(0);
    arrivals.push({ sequence: packet.sequence, timestamp: packet.timestamp, payloadType: packet.payloadType, loudness: pcm.reduce((max, s) => Math.max(max, Math.abs(s)), 0) });
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return { socket, port: socket.address().port, arrivals };
}

/** The bodies of the 200 OKs to INVITEs that SIPp received, in order (from its -trace_msg log). */
function inviteAnswers(dir: string): string[] {
  const log = readdirSync(dir).filter((f) => f.endsWith('_messages.log')).map((f) => readFileSync(join(dir, f), 'utf8')).join('\n');
  return log.split(/\n-{20,}[^\n]*\n/)
    .filter((message) => /message received/.test(message) && /SIP\/2\.0 200 OK/.test(message) && /CSeq:\s*\d+ INVITE/i.test(message))
    .map((message) => message.slice(message.search(/\r?\n\r?\n/)).trim());
}

describe('SDP offers from a real peer', { skip: !hasSipp }, () => {
  test('audio and video offered: video refused with port 0, the call speaks on audio; a sendonly re-INVITE is answered recvonly and our media stops until resumed', async () => {
    const [number] = (await lv.live().get(`/v1/numbers?phone_number=${encodeURIComponent(NUMBER)}`)).body.data as { id: string }[];
    assert.ok(number);
    const set = await lv.live().patch(`/v1/numbers/${number.id}`, {
      voice_flow: [
        { say: { text: 'Thank you for calling. This message is long enough to still be playing while the call is held and taken off hold again.' } },
        { pause: { seconds: 10 } },
      ],
      voice_url: null,
    });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    const audio = await rtpListener();
    const video = await rtpListener();
    try {
      const sipp = await runSipp({
        scenario: 'uac-inbound-hold.xml', remote: `127.0.0.1:${lv.sipPort}`,
        args: ['-s', NUMBER, '-key', 'rtp_port', String(audio.port), '-key', 'rtp_video_port', String(video.port), '-trace_msg'],
      });
      const done = await sipp.done;
      assert.equal(done.code, 0, done.errors);

      const answers = inviteAnswers(sipp.dir).map((body) => parse(body));
      assert.equal(answers.length, 3, 'the INVITE and two re-INVITEs were answered');
      const [first, held, resumed] = answers as [ReturnType<typeof parse>, ReturnType<typeof parse>, ReturnType<typeof parse>];
      assert.deepEqual(first.media.map((m) => [m.type, m.port === 0 ? 0 : 'open', m.protocol]), [['audio', 'open', 'RTP/AVP'], ['video', 0, 'RTP/AVP']]);
      assert.deepEqual(first.media[0]!.rtp.map((r) => r.codec), ['PCMU', 'telephone-event']);
      assert.equal(first.media[0]!.direction, 'sendrecv');
      assert.deepEqual(held.media.map((m) => [m.type, m.direction]), [['audio', 'recvonly'], ['video', undefined]]);
      assert.equal(held.media[1]!.port, 0);
      assert.equal(resumed.media[0]!.direction, 'sendrecv');
      // Same session, same port; the version goes up with each changed answer (RFC 3264 section 8).
      assert.deepEqual(answers.map((a) => a.origin.sessionId), [first.origin.sessionId, first.origin.sessionId, first.origin.sessionId]);
      assert.deepEqual(answers.map((a) => a.origin.sessionVersion - first.origin.sessionVersion), [0, 1, 2]);
      assert.deepEqual(answers.map((a) => a.media[0]!.port), [first.media[0]!.port, first.media[0]!.port, first.media[0]!.port]);

      // Audio came (the prompt, so not only silence), none to the refused video port.
      const arrivals = audio.arrivals;
      assert.ok(arrivals.length > 50, `${arrivals.length} RTP packets`);
      assert.ok(arrivals.every((a) => a.payloadType === 0), 'PCMU only');
      assert.ok(arrivals.some((a) => a.loudness > 1000), 'the prompt was heard');
      assert.equal(video.arrivals.length, 0);
      // Held for 1.5 s: one silence of over a second, with audio before and after it. Measured on
      // our media clock (RTP timestamps, 8 per ms, consecutive packets by sequence), so a busy
      // test thread reading the socket late does not look like a pause.
      assert.ok(arrivals.every((a, i) => i === 0 || a.sequence === ((arrivals[i - 1]!.sequence + 1) & 0xffff)), 'no packet lost or reordered on loopback');
      const gaps = arrivals.slice(1).map((a, i) => ({ from: i, ms: (((a.timestamp - arrivals[i]!.timestamp) >>> 0) / 8) }));
      const hold = gaps.reduce((longest, gap) => (gap.ms > longest.ms ? gap : longest));
      assert.ok(hold.ms > 1000 && hold.ms < 2500, `the longest pause in our media is ${Math.round(hold.ms)} ms`);
      assert.ok(hold.from > 25, `${hold.from} packets before the hold`);
      assert.ok(arrivals.length - hold.from > 25, `${arrivals.length - hold.from} packets after it`);
      assert.equal(gaps.filter((gap) => gap.ms !== 20).length, 1, 'media stopped once, for the hold; every other packet 20 ms after the one before');

      const [call] = (await lv.live().get(`/v1/calls?to=${encodeURIComponent(NUMBER)}`)).body.data as { id: string }[];
      assert.ok(call);
      const completed = await lv.receiver.waitForEvent('call.completed', call.id, 30_000);
      assert.equal(completed.data.object.hangup_source, 'caller');
    } finally {
      audio.socket.close();
      video.socket.close();
    }
  });
});
