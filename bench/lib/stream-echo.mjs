// bench:streams' echo app, on its own thread so the server's main thread (API, SIP, database)
// does not delay it, nor it the server: a `ws` server on 127.0.0.1 that answers every inbound
// media frame with its payload. Streams take one of two roles by the order they connect:
//   - even ones, after every 25th echoed frame, send a mark named with the time they sent it:
//     its round trip waits behind whatever echo audio is queued (the "mark trip");
//   - odd ones, once a second, probe: `clear` (the play queue is now empty), one 20 ms frame
//     that says which probe it is, and a mark. The frame's RTP packet is timed on the wire by
//     lib/rtp-probe-capture.py: from the send here to there is the WS→RTP added delay, with no
//     queued audio and nothing of the way back. The mark comes back in the very tick that
//     sends that packet (rtp/stream-leg.ts pull): its round trip is the same plus one
//     worker→app hop, the bound to use where packets cannot be captured. SIPp echoes the
//     packet back; when its inbound frame reaches the app, against the echo's time on the
//     wire, is the RTP→WS added delay (jitter buffer included).
// It measures, on its own clock, those round trips and each media frame's arrival against its
// stream's 20 ms clock (bench/streams.ts says what they mean). Messages: from the bench
// 'measure' (on/off), 'stop' (every stream), 'report'; to it 'listening', 'started', 'report'.
import { parentPort } from 'node:worker_threads';
import { WebSocketServer } from 'ws';

const MARK_EVERY = 25;
const PROBE_EVERY = 50;
const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
const sockets = new Set();
let measuring = false;
let connections = 0;
let markTrips = [];
let probeTrips = [];
/** [probe id, sent at in ms since the epoch] (performance.timeOrigin: one clock with the kernel's). */
let probeSends = [];
/** [probe id, when its echo's inbound frame arrived here, ms since the epoch]. */
let probeEchoes = [];
let nextProbe = 1;
const QUIET = Buffer.alloc(160, 0xff).toString('base64');
const probeIdOf = (head) => [4, 5, 6, 7].reduce((id, i) => id * 64 + (head[i] - 0x10), 0);
/** µ-law bytes (none 0x7f, the one code that does not survive decoding): magic, the id in four base-64 digits from 0x10, quiet. */
function probeFrame(id) {
  const bytes = Buffer.alloc(160, 0x55);
  bytes.set([0x5a, 0xa5, 0x3c, 0xc3]);
  for (let i = 7, rest = id; i >= 4; i--, rest = Math.floor(rest / 64)) bytes[i] = 0x10 + (rest % 64);
  return bytes.toString('base64');
}
let lateness = [];

wss.on('listening', () => parentPort.postMessage({ kind: 'listening', port: wss.address().port }));
wss.on('connection', (socket) => {
  sockets.add(socket);
  const probes = connections++ % 2 === 1;
  let echoed = 0;
  let base = Infinity;
  const seen = [];
  const send = (frame) => socket.send(JSON.stringify(frame));
  socket.on('message', (data) => {
    const frame = JSON.parse(data.toString());
    const now = performance.now();
    if (frame.event === 'start') parentPort.postMessage({ kind: 'started' });
    else if (frame.event === 'media') {
      const head = probes ? Buffer.from(frame.media.payload.slice(0, 12), 'base64') : null;
      const probeBack = head !== null && head.readUInt32BE(0) === 0x5aa53cc3;
      // A probe back from SIPp's echo: when it reached the app (RTP→WS on the wire clock).
      if (probeBack && measuring) probeEchoes.push([probeIdOf(head), performance.timeOrigin + now]);
      const offset = now - frame.media.timestamp;
      if (offset < base) base = offset;
      if (measuring) seen.push(offset);
      echoed++;
      if (probes && echoed % PROBE_EVERY === 0) {
        // The probe replaces this frame's echo: nothing queued ahead of it.
        const id = nextProbe++;
        send({ event: 'clear' });
        if (measuring) probeSends.push([id, performance.timeOrigin + performance.now()]);
        send({ event: 'media', media: { payload: probeFrame(id) } });
        send({ event: 'mark', mark: { name: `probe:${performance.now()}` } });
        return;
      }
      // Not echoed again: it would go round and round (SIPp echoes it back each time).
      send({ event: 'media', media: { payload: probeBack ? QUIET : frame.media.payload } });
      if (!probes && echoed % MARK_EVERY === 0) send({ event: 'mark', mark: { name: `trip:${performance.now()}` } });
    } else if (frame.event === 'mark' && measuring && !frame.mark.cleared) {
      const [kind, at] = frame.mark.name.split(':');
      (kind === 'probe' ? probeTrips : markTrips).push(now - Number(at));
    }
  });
  socket.once('close', () => {
    sockets.delete(socket);
    for (const offset of seen) lateness.push(offset - base);
  });
});

parentPort.on('message', (message) => {
  if (message.kind === 'measure') measuring = message.on;
  else if (message.kind === 'stop') for (const socket of sockets) socket.send(JSON.stringify({ event: 'stop' }));
  else if (message.kind === 'report') {
    parentPort.postMessage({ kind: 'report', markTrips, probeTrips, probeSends, probeEchoes, lateness });
    markTrips = [];
    probeTrips = [];
    probeSends = [];
    probeEchoes = [];
    lateness = [];
  }
});
