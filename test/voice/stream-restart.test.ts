// Issue 27: a media stream's socket lives in one server process. When that process is
// SIGKILLed, the next one on the same store ends the streams it left open: `stopped` with
// reason `node_lost` (the sandbox call survives the restart), call.stream.stopped once each,
// and a flow held by a bidirectional stream goes on to its next verb. On SQLite the restarted
// process ends them as it starts; on PostgreSQL the processes are media nodes (a carriers
// file) and the survivor ends the dead node's streams when its lease runs out. Through HTTP and
// a webhook receiver, as a user sees it.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createTestStore, type TestStore } from '../helpers/database.ts';
import { TEST_ENV } from '../helpers/server.ts';
import { NODES_SECRET_KEY, nodeApi, nodeCarriersFile, startSecondNode, type SecondNode } from '../helpers/second-node.ts';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { startStreamServer, type StreamServer } from '../helpers/stream-server.ts';
import { freeUdpPort } from '../helpers/sipp.ts';
import { MAGIC, eventsOf } from './voice-helpers.ts';

let store: TestStore | undefined;
let receiver: WebhookReceiver | undefined;
let media: StreamServer | undefined;
const nodes: SecondNode[] = [];
after(async () => {
  for (const node of nodes) node.kill();
  await media?.close();
  await receiver?.close();
  await store?.drop();
});

// Three processes start here (an account, two servers): on a loaded machine each takes tens of seconds.
test('a server SIGKILLed with streams up: the next process stops them (node_lost) once, and the held flow goes on', { timeout: 420_000 }, async () => {
  store = await createTestStore();
  const postgres = store.databaseUrl !== undefined;
  const env: Record<string, string | undefined> = { ...process.env, ...TEST_ENV, SWITCHBOARD_SECRET_KEY: NODES_SECRET_KEY, DATABASE_URL: store.databaseUrl };
  if (!postgres) delete env.DATABASE_URL;
  const created = spawnSync(process.execPath, ['bin/switchboard.js', 'accounts', 'create', '--plan', 'scale', '--json', '--data-dir', store.dataDir], { env, encoding: 'utf8' });
  assert.equal(created.status, 0, created.stderr);
  const account = JSON.parse(created.stdout) as { keys: { sandbox: string }; numbers: { sandbox: string[] } };
  // PostgreSQL: a media node with a short lease (no SIP peer is needed: the calls are sandbox calls).
  const carriersFile = postgres ? await nodeCarriersFile(await freeUdpPort(), [55000, 55099], 2) : undefined;
  const start = async () => {
    const node = await startSecondNode({ databaseUrl: store!.databaseUrl, dataDir: store!.dataDir, ...(carriersFile ? { carriersFile } : {}) });
    nodes.push(node);
    return node;
  };
  let current = await start();
  const api = nodeApi(() => current, account.keys.sandbox);
  const hooks = await startReceiver();
  receiver = hooks;
  hooks.secrets.push((await api('POST', '/v1/webhooks', { url: hooks.url, events: ['*'] })).secret);
  hooks.secrets.push((await api('GET', '/v1/webhooks/default_secret')).secret);
  media = await startStreamServer();

  // A flow held by a bidirectional stream, and a unidirectional stream asked for through the API.
  const call = await api('POST', '/v1/calls', {
    from: account.numbers.sandbox[0], to: MAGIC.staysUp,
    flow: [{ stream: { url: media.url, bidirectional: true, parameters: { leg: 'held' } } }, { say: { text: 'The stream is over.' } }, { hangup: {} }],
  });
  await hooks.waitForEvent('call.stream.started', undefined, 60_000);
  const extra = await api('POST', `/v1/calls/${call.id}/streams`, { url: media.url, track: 'both' });
  await hooks.waitFor((events) => events.some((e) => e.type === 'call.stream.started' && e.data.object.id === extra.id), 60_000);
  const before = (await api('GET', `/v1/calls/${call.id}/streams`)).data;
  assert.deepEqual(before.map((s: any) => s.status), ['started', 'started']);
  const sockets = [await media.connection(0), await media.connection(1)];

  const killed = current;
  killed.kill();
  await new Promise((resolve) => killed.process.once('exit', resolve));
  // The sockets died with the process: closed, with no stop frame.
  await Promise.all(sockets.map((s) => s.closed));
  current = await start();

  const streamIds: string[] = before.map((s: any) => s.id);
  await hooks.waitFor(() => streamIds.every((id) => eventsOf(hooks, id).some((e) => e.type === 'call.stream.stopped')), 90_000)
    .catch((err: Error) => assert.fail(`${err.message}\n${current.log()}`));
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
