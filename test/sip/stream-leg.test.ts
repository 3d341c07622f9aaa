// The worker's side of a live media stream (rtp/stream-leg.ts), driven tick by tick as the
// media worker's session drives it, against a `ws` server on 127.0.0.1: the app's audio is
// paced out 20 ms per tick across its messages, a mark comes back in the tick that sends the
// last audio before it, `clear` drops the queue and returns its marks cleared, `stop` ends the
// stream (completed) and the call's frames carry the shared timestamps.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { LegStream } from '../../src/carriers/rtp/stream-leg.ts';
import type { StreamReport } from '../../src/carriers/rtp/protocol.ts';
import { startStreamServer, type StreamConnection, type StreamServer } from '../helpers/stream-server.ts';
import { until } from '../helpers/until.ts';

let server: StreamServer;
before(async () => {
  server = await startStreamServer();
});
after(() => server.close());

async function open(): Promise<{ leg: LegStream; connection: StreamConnection; reports: StreamReport[] }> {
  const reports: StreamReport[] = [];
  const count = server.connections.length;
  const leg = new LegStream({
    streamId: 'stream_unit', callId: 'call_unit', accountId: 'acct_unit', url: server.url, address: null,
    track: 'both', bidirectional: true, format: 'l16_8000', parameters: {}, headers: {}, handshakeTimeoutMs: 5000,
  }, (report) => reports.push(report));
  const connection = await server.connection(count);
  await until('the stream started', () => reports.some((r) => r.kind === 'started'));
  return { leg, connection, reports };
}

const l16 = (samples: number[]) => {
  const bytes = Buffer.alloc(samples.length * 2);
  samples.forEach((s, i) => bytes.writeInt16LE(s, 2 * i));
  return bytes.toString('base64');
};


test('app audio is paced 20 ms per tick across messages; a mark returns in the tick its audio ends; clear drops the queue and clears its marks; stop completes', async () => {
  const { leg, connection, reports } = await open();
  // 250 samples (31.25 ms) then 150 more: three ticks of audio, the third padded with silence.
  connection.send({ event: 'media', media: { payload: l16(Array(250).fill(1000)) } });
  connection.send({ event: 'media', media: { payload: l16(Array(150).fill(2000)) } });
  connection.send({ event: 'mark', mark: { name: 'after-400' } });
  await until('the app audio is queued', () => leg.queued === 400);
  const out = new Int16Array(160);
  const ticks: number[][] = [];
  for (let tick = 0; tick < 4; tick++) {
    leg.inbound(new Int16Array(160).fill(tick));
    out.fill(-1);
    ticks.push(leg.pull(out) ? [out[0]!, out[159]!] : []);
    leg.outbound(out);
  }
  assert.deepEqual(ticks, [[1000, 1000], [1000, 2000], [2000, 0], []], 'three frames of audio, then none');
  // The socket keeps the order things happened in: the mark went in the third tick, with its last audio.
  const frames = await connection.waitFor((f) => f.filter((x) => x.event === 'media').length === 8, 'four ticks of frames');
  const order = frames.filter((f) => f.event !== 'connected' && f.event !== 'start').map((f) => (f.event === 'media' ? `${f.media.track[0]}${f.media.timestamp}` : f.event));
  assert.deepEqual(order, ['i0', 'o0', 'i20', 'o20', 'i40', 'mark', 'o40', 'i60', 'o60']);
  assert.deepEqual(frames.find((f) => f.event === 'mark').mark, { name: 'after-400' });

  // The call's frames: a frame per track per tick, timestamps on the shared 20 ms clock.
  const media = connection.frames.filter((f) => f.event === 'media');
  assert.deepEqual(media.filter((f) => f.media.track === 'inbound').map((f) => f.media.timestamp), [0, 20, 40, 60]);
  assert.deepEqual(media.filter((f) => f.media.track === 'outbound').map((f) => f.media.timestamp), [0, 20, 40, 60]);

  // Barge-in: queued audio and its marks go at once.
  connection.send({ event: 'media', media: { payload: l16(Array(1600).fill(3000)) } });
  connection.send({ event: 'mark', mark: { name: 'never-played' } });
  await until('the app audio is queued', () => leg.queued === 1600);
  assert.equal(leg.pull(out), true);
  leg.outbound(out);
  connection.send({ event: 'clear' });
  const [, cleared] = (await connection.waitFor((f) => f.filter((x) => x.event === 'mark').length === 2, 'the cleared mark')).filter((f) => f.event === 'mark');
  assert.deepEqual(cleared.mark, { name: 'never-played', cleared: true });
  assert.equal(leg.pull(out), false, 'nothing left to play');

  connection.send({ event: 'stop' });
  await until('the stream ended', () => reports.some((r) => r.kind === 'ended'));
  assert.deepEqual(reports.at(-1), { kind: 'ended', end: { reason: 'completed', droppedFrames: 0 } });
  assert.equal(leg.done, true);
  await connection.closed;
});

test('stopped by the call: `stop` with the reason goes to the server, then the close', async () => {
  const { leg, connection, reports } = await open();
  leg.stop('call_ended');
  await connection.closed;
  assert.equal(connection.frames.at(-1).event, 'stop');
  assert.equal(connection.frames.at(-1).stop.reason, 'call_ended');
  assert.deepEqual(reports.at(-1), { kind: 'ended', end: { reason: 'call_ended', droppedFrames: 0 } });
});
