// Issue 27: a server stopped gracefully (SIGTERM) with media streams up. Its sockets cannot
// outlive it, but the sandbox call does (the next process runs it on): each stream sends the
// `stop` frame (reason node_lost, as a crash would be recorded), closes its socket cleanly
// (close code 1000), and ends with call.stream.stopped once, written before the process
// exits; the next process finds nothing left to end, and the flow the stream held goes on.
// Through HTTP, a `ws` server and a webhook receiver on 127.0.0.1, as a user sees it.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { startStreamsOnANode, type StreamsOnANode } from '../helpers/streams-on-a-node.ts';
import { eventsOf } from './voice-helpers.ts';

let setup: StreamsOnANode | undefined;
after(() => setup?.close());

test('SIGTERM with streams up: each sends stop and closes cleanly, call.stream.stopped once (node_lost), the held flow goes on', { timeout: 420_000 }, async () => {
  setup = await startStreamsOnANode();
  const { hooks, api, sockets } = setup;
  const call = { id: setup.callId };
  const streamIds: string[] = setup.streams.map((s: any) => s.id);
  const closeCodes = sockets.map((s) => new Promise<number>((resolve) => s.socket.once('close', (code) => resolve(code))));

  const stopping = setup.current();
  stopping.process.kill('SIGTERM');
  const exitCode = await new Promise<number | null>((resolve) => stopping.process.once('exit', (code) => resolve(code)));
  assert.equal(exitCode, 0, stopping.log());
  // Each socket: the stop frame last, then a clean close.
  for (const socket of sockets) {
    const stops = socket.frames.filter((f) => f.event === 'stop');
    assert.equal(stops.length, 1, `one stop frame: ${socket.frames.map((f) => f.event).slice(-5).join(',')}`);
    assert.equal(socket.frames.at(-1).event, 'stop', 'the stop frame is the last');
    assert.equal(stops[0].stop.reason, 'node_lost');
    assert.equal(stops[0].stop.call_id, call.id);
  }
  assert.deepEqual(await Promise.all(closeCodes), [1000, 1000], 'closed with the close handshake');
  // Written before the process exited: the streams are over in the store already.
  await setup.start();
  const after = (await api('GET', `/v1/calls/${call.id}/streams`)).data;
  assert.deepEqual(after.map((s: any) => [s.status, s.reason]), [['stopped', 'node_lost'], ['stopped', 'node_lost']], JSON.stringify(after));

  // The held flow went on in the next process: its say, then the hang-up.
  await hooks.waitForEvent('call.completed', call.id, 90_000).catch((err: Error) => assert.fail(`${err.message}\n${setup!.current().log()}`));
  await hooks.waitFor(() => streamIds.every((id) => eventsOf(hooks, id).some((e) => e.type === 'call.stream.stopped')), 60_000);
  for (const id of streamIds) {
    assert.deepEqual(eventsOf(hooks, id).map((e) => e.type), ['call.stream.started', 'call.stream.stopped'], `${id}: one start, one stop`);
    const deliveries = hooks.events().filter((e) => e.type === 'call.stream.stopped' && e.data.object.id === id);
    assert.equal(deliveries.length, 1, `${id}: call.stream.stopped delivered once`);
    assert.equal(deliveries[0]!.data.object.reason, 'node_lost');
  }
  const flow = await api('GET', `/v1/calls/${call.id}/flow`);
  assert.deepEqual([flow.log[0].result.status, flow.log[0].result.reason], ['stopped', 'node_lost'], JSON.stringify(flow.log[0]));
  assert.ok(flow.log.some((e: any) => e.index === 1), 'the verb after the stream ran');
  assert.equal((await api('GET', `/v1/calls/${call.id}`)).status, 'completed');
});
