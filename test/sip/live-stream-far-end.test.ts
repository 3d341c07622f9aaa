// Issue 27: the audio a bidirectional stream's app sends reaches the far end. SIPp answers and
// echoes every RTP packet it receives (-rtp_echo), so what reached SIPp comes back as the
// stream's inbound track: the app sends two seconds of a chirp, and the inbound audio holds
// it (correlation above 0.95), which it can only if SIPp got it. A `ws` server on 127.0.0.1
// plays the app; through HTTP on both databases.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { freeUdpPort, peerAvailable, runSipp } from '../helpers/sipp.ts';
import { startLiveVoice, type LiveVoice } from '../helpers/live-voice.ts';
import { startStreamServer, type StreamServer } from '../helpers/stream-server.ts';
import { matchAudio } from '../helpers/audio-match.ts';
import { decodeG711, encodeG711 } from '../../src/carriers/rtp/g711.ts';

const hasSipp = peerAvailable('sipp');
const FROM = '+14155550142';
const TO = '+14155550199';
/** Two seconds sweeping 300 Hz to 3 kHz: it lines up with itself at one lag only. */
const CHIRP = Int16Array.from({ length: 16000 }, (_, i) => {
  const t = i / 8000;
  return Math.round(9000 * Math.sin(2 * Math.PI * (300 * t + (2700 / 4) * t * t)));
});

let lv: LiveVoice;
let trunkPort: number;
let media: StreamServer;

before(async () => {
  if (!hasSipp) return;
  trunkPort = await freeUdpPort();
  lv = await startLiveVoice({
    rtp: [58100, 58199],
    trunks: [`{ name: sipp, host: 127.0.0.1, port: ${trunkPort}, codecs: [PCMU] }`],
    numbers: { [FROM]: 'sipp' },
  });
  // The app: the chirp as soon as the stream starts, then a mark; a second of inbound audio
  // after the mark is back (the chirp has left by then), `stop`.
  media = await startStreamServer((connection, frame) => {
    if (frame.event === 'start') {
      connection.send({ event: 'media', media: { payload: Buffer.from(encodeG711('PCMU', CHIRP)).toString('base64') } });
      connection.send({ event: 'mark', mark: { name: 'chirped' } });
    }
    const markAt = connection.frames.findIndex((f) => f.event === 'mark');
    if (frame.event === 'media' && markAt >= 0 && connection.frames.length - markAt === 50) connection.send({ event: 'stop' });
  });
});

after(async () => {
  await media?.close();
  await lv?.close();
});

describe('the app\'s audio at the far end (SIPp)', { skip: !hasSipp }, () => {
  test('SIPp echoes what it received: the stream\'s inbound track holds the chirp the app sent', async () => {
    const sipp = await runSipp({ scenario: 'uas-answer-echo.xml', port: trunkPort, args: ['-rtp_echo'], timeoutSeconds: 60 });
    const placed = await lv.live().post('/v1/calls', { from: FROM, to: TO, flow: [{ stream: { url: media.url, bidirectional: true } }] });
    assert.equal(placed.status, 200, JSON.stringify(placed.body));
    const connection = await media.connection(0, 30_000);
    await connection.closed;
    // The app's stop let the flow run out: the call hung up, SIPp got our BYE.
    assert.equal((await sipp.done).code, 0);
    const inbound = connection.frames.filter((f) => f.event === 'media' && f.media.track === 'inbound');
    const heard = decodeG711('PCMU', Buffer.concat(inbound.map((f) => Buffer.from(f.media.payload, 'base64'))));
    assert.ok(heard.length > CHIRP.length, `${inbound.length} inbound frames`);
    const { correlation, lag } = matchAudio(CHIRP, heard, heard.length - CHIRP.length);
    assert.ok(correlation > 0.95, `the chirp as SIPp echoed it: correlation ${correlation} at lag ${lag}`);
    const stopped = await lv.receiver.waitForEvent('call.stream.stopped', String(connection.headers['webhook-id']));
    assert.deepEqual([stopped.data.object.reason, stopped.data.object.dropped_frames], ['completed', 0]);
  });
});
