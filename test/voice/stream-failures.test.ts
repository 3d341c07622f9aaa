// Issue 27: a media stream server that refuses the handshake, never answers it, is not there,
// or closes the socket mid-call gives call.stream.failed (with why) or call.stream.stopped
// (remote_closed), and the call goes on: a flow's bidirectional stream that ends that way lets
// the flow continue to its next verb. Through HTTP on both databases.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { useSandboxAccount } from '../helpers/sandbox-account.ts';
import { startStreamServer, type StreamServer } from '../helpers/stream-server.ts';
import { MAGIC } from './voice-helpers.ts';
import { waitForFlow } from './flow-helpers.ts';

// A short handshake timeout (the flow webhook's) keeps the never-answering server's case quick;
// not so short that a loaded machine turns the refusing server's quick 403 into a timeout.
const sandbox = useSandboxAccount({ SWITCHBOARD_SIM_TIME_SCALE: '1', SWITCHBOARD_FLOW_WEBHOOK_TIMEOUT_MS: '6000' });
const api = sandbox.api;
let refusing: Server;
let silent: TcpServer;
const silentSockets: Socket[] = [];
let closing: StreamServer;
let urls: { refusing: string; silent: string; absent: string };

before(async () => {
  refusing = createServer((_req, res) => res.writeHead(403).end('no'));
  refusing.on('upgrade', (_req, socket) => socket.on('error', () => {}).end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\nconnection: close\r\n\r\n'));
  await new Promise<void>((r) => refusing.listen(0, '127.0.0.1', r));
  silent = createTcpServer((socket) => silentSockets.push(socket.on('error', () => {})));
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  // A port nobody listens on: bound, then closed.
  const gone = createTcpServer();
  await new Promise<void>((r) => gone.listen(0, '127.0.0.1', r));
  const absentPort = (gone.address() as AddressInfo).port;
  await new Promise<void>((r) => gone.close(() => r()));
  // Closes each socket a moment after the start frame.
  closing = await startStreamServer((connection, frame) => {
    if (frame.event === 'start') setTimeout(() => connection.socket.close(1000), 200);
  });
  urls = {
    refusing: `ws://127.0.0.1:${(refusing.address() as AddressInfo).port}/media`,
    silent: `ws://127.0.0.1:${(silent.address() as AddressInfo).port}/media`,
    absent: `ws://127.0.0.1:${absentPort}/media`,
  };
});
after(async () => {
  for (const socket of silentSockets) socket.destroy();
  await new Promise<void>((r) => silent.close(() => r()));
  refusing.closeAllConnections();
  await new Promise<void>((r) => refusing.close(() => r()));
  await closing.close();
});

async function advance(seconds: number): Promise<void> {
  const res = await api().post('/v1/sandbox/clock/advance', { seconds });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

describe('issue 27: stream servers that fail', () => {
  test('refused, never answered, absent and closing servers fail or stop the stream, and the flow goes on', async () => {
    const res = await api().post('/v1/calls', {
      from: sandbox.from, to: MAGIC.staysUp, flow: [
        { stream: { url: urls.refusing, bidirectional: true } },
        { stream: { url: urls.silent, bidirectional: true } },
        { stream: { url: urls.absent, bidirectional: true } },
        { stream: { url: closing.url, bidirectional: true } },
        { say: { text: 'Still here.' } },
        { hangup: {} },
      ],
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const callId = res.body.id;
    await advance(1.05);
    // Each bidirectional stream holds the flow until it is over; the say follows the last.
    const flow = await waitForFlow(api(), callId, (f) => f.log.some((e: any) => e.index === 4), 30_000);
    const results = flow.log.slice(0, 4).map((e: any) => [e.result.status, e.result.reason]);
    assert.deepEqual(results, [['failed', 'handshake_status'], ['failed', 'timeout'], ['failed', 'connect_refused'], ['stopped', 'remote_closed']]);
    assert.match(flow.log[0].result.detail, /HTTP 403/);
    await advance(2);
    await sandbox.receiver.waitForEvent('call.completed', callId);
    const call = (await api().get(`/v1/calls/${callId}`)).body;
    assert.equal(call.hangup_reason, 'The call\'s flow hung up (a hangup verb).', 'the flow ran to its own hangup');

    const streams = (await api().get(`/v1/calls/${callId}/streams`)).body.data.reverse();
    assert.deepEqual(streams.map((s: any) => [s.status, s.reason]), results);
    for (const [i, stream] of streams.entries()) {
      const type = i < 3 ? 'call.stream.failed' : 'call.stream.stopped';
      const event = await sandbox.receiver.waitForEvent(type, stream.id);
      assert.equal(event.data.object.reason, results[i]![1]);
      if (i < 3) assert.ok(event.data.object.error, 'a failure says why');
    }
  });

  test('a stream the API starts on a server that closes mid-call stops with remote_closed; the call stays up', async () => {
    const res = await api().post('/v1/calls', { from: sandbox.from, to: MAGIC.staysUp, flow: [{ pause: { seconds: 60 } }] });
    const callId = res.body.id;
    await advance(1.05);
    await sandbox.receiver.waitForEvent('call.answered', callId);
    const started = await api().post(`/v1/calls/${callId}/streams`, { url: closing.url });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    const stopped = await sandbox.receiver.waitForEvent('call.stream.stopped', started.body.id);
    assert.equal(stopped.data.object.reason, 'remote_closed');
    assert.equal((await api().get(`/v1/calls/${callId}`)).body.status, 'in_progress');
    // One bidirectional stream per call.
    const first = await api().post(`/v1/calls/${callId}/streams`, { url: urls.silent, bidirectional: true });
    const second = await api().post(`/v1/calls/${callId}/streams`, { url: urls.silent, bidirectional: true });
    assert.equal(first.status, 200);
    assert.deepEqual([second.status, second.body.code], [409, 'stream_bidirectional_in_progress']);
    await sandbox.receiver.waitForEvent('call.stream.failed', first.body.id);
    assert.equal((await api().post(`/v1/calls/${callId}/hangup`)).status, 200);
  });
});
