// bench:streams' echo app, on its own thread so the server's main thread (API, SIP, database)
// does not delay it, nor it the server: a `ws` server on 127.0.0.1 that answers every inbound
// media frame with its payload and, after every 25th, a mark named with the time it sent it.
// It measures, on its own clock, each mark's round trip and each media frame's arrival against
// its stream's 20 ms clock (bench/streams.ts says what they mean). Messages: from the bench
// 'measure' (on/off), 'stop' (every stream), 'report'; to it 'listening', 'started', 'report'.
import { parentPort } from 'node:worker_threads';
import { WebSocketServer } from 'ws';

const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
const sockets = new Set();
let measuring = false;
let markTrips = [];
let lateness = [];

wss.on('listening', () => parentPort.postMessage({ kind: 'listening', port: wss.address().port }));
wss.on('connection', (socket) => {
  sockets.add(socket);
  let echoed = 0;
  let base = Infinity;
  const seen = [];
  socket.on('message', (data) => {
    const frame = JSON.parse(data.toString());
    const now = performance.now();
    if (frame.event === 'start') parentPort.postMessage({ kind: 'started' });
    else if (frame.event === 'media') {
      const offset = now - frame.media.timestamp;
      if (offset < base) base = offset;
      if (measuring) seen.push(offset);
      socket.send(JSON.stringify({ event: 'media', media: { payload: frame.media.payload } }));
      if (++echoed % 25 === 0) socket.send(JSON.stringify({ event: 'mark', mark: { name: String(performance.now()) } }));
    } else if (frame.event === 'mark' && measuring) {
      markTrips.push(now - Number(frame.mark.name));
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
    parentPort.postMessage({ kind: 'report', markTrips, lateness });
    markTrips = [];
    lateness = [];
  }
});
