// Issue 27: a server stopped gracefully (what SIGTERM runs) with a live call streaming. The
// shutdown hangs up this node's calls, so the stream ends as the call does: its media worker
// sends the `stop` frame (reason call_ended) and closes the socket cleanly (close code 1000)
// before the worker goes, and call.stream.stopped is written before the store closes, once
// (the next process finds nothing left to end). SIPp plays the far end, a `ws` server the
// customer's media server; SIPp answers, echoes and waits for our BYE, so only the shutdown
// ends the call. The event reaches a real webhook receiver. Both databases.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { freeUdpPort, peerAvailable, runSipp } from '../helpers/sipp.ts';
import { startLiveVoice, type LiveVoice } from '../helpers/live-voice.ts';
import { startStreamServer, type StreamServer } from '../helpers/stream-server.ts';
import { startServer } from '../../src/main.ts';

const hasSipp = peerAvailable('sipp');
const FROM = '+14155550142';
const TO = '+14155550199';

let lv: LiveVoice;
let trunkPort: number;
let media: StreamServer;
const cleanups: Array<() => Promise<unknown>> = [];

before(async () => {
  if (!hasSipp) return;
  trunkPort = await freeUdpPort();
  lv = await startLiveVoice({
    rtp: [58000, 58099],
    trunks: [`{ name: sipp, host: 127.0.0.1, port: ${trunkPort}, codecs: [PCMU] }`],
    numbers: { [FROM]: 'sipp' },
  });
  media = await startStreamServer();
});

after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await media?.close();
  await lv?.close();
});

describe('a live stream at shutdown (SIPp)', { skip: !hasSipp }, () => {
  test('the server closes: the stream sends stop (call_ended), closes cleanly, call.stream.stopped once', async () => {
    const sipp = await runSipp({ scenario: 'uas-answer-echo.xml', port: trunkPort, timeoutSeconds: 120 });
    cleanups.push(async () => {
      if (sipp.process.exitCode === null) sipp.process.kill('SIGKILL');
      await sipp.done;
    });
    const placed = await lv.live().post('/v1/calls', { from: FROM, to: TO, flow: [{ stream: { url: media.url, bidirectional: true } }] });
    assert.equal(placed.status, 200, JSON.stringify(placed.body));
    const connection = await media.connection(0, 30_000).catch((err: Error) => assert.fail(`${err.message}; events: ${lv.receiver.events().map((e) => `${e.type} ${JSON.stringify(e.data.object.failure ?? e.data.object.hangup_cause ?? '')}`).join(', ')}`));
    await connection.waitFor((f) => f.some((x) => x.event === 'media'), 'media');
    const streamId = String(connection.headers['webhook-id']);
    const closeCode = new Promise<number>((resolve) => connection.socket.once('close', (code) => resolve(code)));

    await lv.t.server.close();
    // Our BYE (the shutdown's) ended SIPp's call: it hung up nothing itself.
    assert.equal((await sipp.done).code, 0);
    const stop = connection.frames.at(-1);
    assert.equal(stop.event, 'stop', `the last frame: ${JSON.stringify(stop).slice(0, 200)}`);
    assert.equal(stop.stop.reason, 'call_ended');
    assert.equal(connection.frames.filter((f) => f.event === 'stop').length, 1);
    assert.equal(await closeCode, 1000, 'closed with the close handshake');

    // The next process on the same store: the stream was over before the first one exited.
    const next = await startServer(lv.t.config, { logger: false });
    cleanups.push(() => next.close());
    const res = await fetch(`${next.url}/v1/calls/${placed.body.id}/streams`, { headers: { authorization: `Bearer ${lv.acct.keys.live}` } });
    const [stream] = ((await res.json()) as { data: Array<{ id: string; status: string; reason: string }> }).data;
    assert.deepEqual([stream!.id, stream!.status, stream!.reason], [streamId, 'stopped', 'call_ended']);
    await lv.receiver.waitForEvent('call.stream.stopped', streamId, 30_000);
    const deliveries = lv.receiver.events().filter((e) => e.type === 'call.stream.stopped' && e.data.object.id === streamId);
    assert.equal(deliveries.length, 1, 'call.stream.stopped delivered once');
    assert.equal(deliveries[0]!.data.object.reason, 'call_ended');
  });
});
