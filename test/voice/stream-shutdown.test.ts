// Issue 27: a server stopped gracefully (SIGTERM) with media streams up. Its sockets cannot
// outlive it, but the sandbox call does (the next process runs it on): each stream sends the
// `stop` frame (reason node_lost, as a crash would be recorded), closes its socket cleanly
// (close code 1000), and ends with call.stream.stopped once, written before the process
// exits; the next process finds nothing left to end, and the flow the stream held goes on.
// Through HTTP, a `ws` server and a webhook receiver on 127.0.0.1, as a user sees it.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createTestStore, type TestStore } from '../helpers/database.ts';
import { TEST_ENV } from '../helpers/server.ts';
import { NODES_SECRET_KEY, nodeApi, startSecondNode, type SecondNode } from '../helpers/second-node.ts';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { startStreamServer, type StreamServer } from '../helpers/stream-server.ts';
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

test('SIGTERM with streams up: each sends stop and closes cleanly, call.stream.stopped once (node_lost), the held flow goes on', { timeout: 420_000 }, async () => {
  store = await createTestStore();
  const env: Record<string, string | undefined> = { ...process.env, ...TEST_ENV, SWITCHBOARD_SECRET_KEY: NODES_SECRET_KEY, DATABASE_URL: store.databaseUrl };
  if (store.databaseUrl === undefined) delete env.DATABASE_URL;
  const created = spawnSync(process.execPath, ['bin/switchboard.js', 'accounts', 'create', '--plan', 'scale', '--json', '--data-dir', store.dataDir], { env, encoding: 'utf8' });
  assert.equal(created.status, 0, created.stderr);
  const account = JSON.parse(created.stdout) as { keys: { sandbox: string }; numbers: { sandbox: string[] } };
  const start = async () => {
    const node = await startSecondNode({ databaseUrl: store!.databaseUrl, dataDir: store!.dataDir });
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
    flow: [{ stream: { url: media.url, bidirectional: true } }, { say: { text: 'The stream is over.' } }, { hangup: {} }],
  });
  await hooks.waitForEvent('call.stream.started', undefined, 60_000);
  const extra = await api('POST', `/v1/calls/${call.id}/streams`, { url: media.url, track: 'both' });
  await hooks.waitFor((events) => events.some((e) => e.type === 'call.stream.started' && e.data.object.id === extra.id), 60_000);
  const streamIds: string[] = (await api('GET', `/v1/calls/${call.id}/streams`)).data.map((s: any) => s.id);
  assert.equal(streamIds.length, 2);
  const sockets = [await media.connection(0), await media.connection(1)];
  const closeCodes = sockets.map((s) => new Promise<number>((resolve) => s.socket.once('close', (code) => resolve(code))));

  const stopping = current;
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
  current = await start();
  const after = (await api('GET', `/v1/calls/${call.id}/streams`)).data;
  assert.deepEqual(after.map((s: any) => [s.status, s.reason]), [['stopped', 'node_lost'], ['stopped', 'node_lost']], JSON.stringify(after));

  // The held flow went on in the next process: its say, then the hang-up.
  await hooks.waitForEvent('call.completed', call.id, 90_000).catch((err: Error) => assert.fail(`${err.message}\n${current.log()}`));
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
