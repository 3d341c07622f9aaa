// Issue 27: a media stream's socket lives in one server process. When that process is
// SIGKILLed, the next one on the same store ends the streams it left open: `stopped` with
// reason `node_lost` (the sandbox call survives the restart), call.stream.stopped once each,
// and a flow held by a bidirectional stream goes on to its next verb. On SQLite the restarted
// process ends them as it starts; on PostgreSQL the processes are media nodes (a carriers
// file) and the survivor ends the dead node's streams when its lease runs out. Through HTTP and
// a webhook receiver, as a user sees it.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { nodeCarriersFile } from '../helpers/second-node.ts';
import { startStreamsOnANode, type StreamsOnANode } from '../helpers/streams-on-a-node.ts';
import { freeUdpPort } from '../helpers/sipp.ts';
import { eventsOf } from './voice-helpers.ts';

let setup: StreamsOnANode | undefined;
after(() => setup?.close());

// Three processes start here (an account, two servers): on a loaded machine each takes tens of seconds.
test('a server SIGKILLed with streams up: the next process stops them (node_lost) once, and the held flow goes on', { timeout: 420_000 }, async () => {
  // PostgreSQL: a media node with a short lease (no SIP peer is needed: the calls are sandbox calls).
  setup = await startStreamsOnANode({
    carriersFile: async (postgres) => (postgres ? nodeCarriersFile(await freeUdpPort(), [55000, 55099], 2) : undefined),
    heldParameters: { leg: 'held' },
  });
  const { hooks, api, sockets } = setup;
  const call = { id: setup.callId };
  const before = setup.streams;
  const killed = setup.current();
  killed.kill();
  await new Promise((resolve) => killed.process.once('exit', resolve));
  // The sockets died with the process: closed, with no stop frame.
  await Promise.all(sockets.map((s) => s.closed));
  await setup.start();

  const streamIds: string[] = before.map((s: any) => s.id);
  await hooks.waitFor(() => streamIds.every((id) => eventsOf(hooks, id).some((e) => e.type === 'call.stream.stopped')), 90_000)
    .catch((err: Error) => assert.fail(`${err.message}\n${setup!.current().log()}`));
  // The held flow went on: its say, then the hang-up.
  await hooks.waitForEvent('call.completed', call.id, 60_000);

  const ended = (await api('GET', `/v1/calls/${call.id}/streams`)).data;
  for (const stream of ended) {
    assert.equal(stream.status, 'stopped', JSON.stringify(stream));
    assert.equal(stream.reason, 'node_lost', JSON.stringify(stream));
    assert.ok(stream.ended_at, 'ended_at is set');
    const types = eventsOf(hooks, stream.id).map((e) => e.type);
    assert.deepEqual(types, ['call.stream.started', 'call.stream.stopped'], `${stream.id}: one start, one stop`);
    const stopped = eventsOf(hooks, stream.id).find((e) => e.type === 'call.stream.stopped')!;
    assert.equal(stopped.data.object.reason, 'node_lost');
  }
  for (const socket of sockets) assert.ok(!socket.frames.some((f) => f.event === 'stop'), 'no stop frame from a killed process');
  const flow = await api('GET', `/v1/calls/${call.id}/flow`);
  assert.deepEqual([flow.log[0].result.status, flow.log[0].result.reason], ['stopped', 'node_lost'], JSON.stringify(flow.log[0]));
  assert.ok(flow.log.some((e: any) => e.index === 1), 'the verb after the stream ran');
  assert.equal((await api('GET', `/v1/calls/${call.id}`)).status, 'completed');
});
