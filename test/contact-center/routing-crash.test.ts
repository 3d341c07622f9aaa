// Issue 26: "routing decisions are durable jobs: a server killed mid-offer loses no caller and
// offers no caller twice". One `switchboard serve` process on a store (SQLite or PostgreSQL)
// routes eight waiting callers to eight workers made available at once, and is SIGKILLed as
// soon as the first offer reaches the receiver, while the other offers are being made. A new
// process on the same store takes over. Through HTTP, with webhooks to a real receiver: every
// caller leaves the queue once, bridged; no caller is offered twice; no worker holds two
// offers; nobody is left waiting or ringing.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createTestStore, type TestStore } from '../helpers/database.ts';
import { TEST_ENV } from '../helpers/server.ts';
import { NODES_SECRET_KEY, startSecondNode, type SecondNode } from '../helpers/second-node.ts';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { MAGIC, eventsOf } from '../voice/voice-helpers.ts';
import { flowEventsOf } from '../voice/flow-helpers.ts';

const CALLERS = 8;

let store: TestStore | undefined;
let receiver: WebhookReceiver | undefined;
const nodes: SecondNode[] = [];
after(async () => {
  for (const node of nodes) node.kill();
  await receiver?.close();
  await store?.drop();
});

/** A client for one node's API with the account's sandbox key. */
function client(node: () => SecondNode, key: string) {
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${node().url}${path}`, {
      method, headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const ok = async (method: string, path: string, body?: unknown) => {
    const res = await call(method, path, body);
    assert.equal(res.status, 200, `${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  return { ok };
}

test('a server SIGKILLed while it offers callers to workers: the next one bridges every caller once and offers none twice', { timeout: 240_000 }, async (t) => {
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
  const api = client(() => current, account.keys.sandbox);

  receiver = await startReceiver();
  receiver.secrets.push((await api.ok('POST', '/v1/webhooks', { url: receiver.url, events: ['*'] })).secret);
  receiver.secrets.push((await api.ok('GET', '/v1/webhooks/default_secret')).secret);

  await api.ok('POST', '/v1/queues', { name: 'crash', wait_flow: [{ pause: { seconds: 600 } }], routing: { required_skills: ['crash'] } });
  const workers: Array<{ id: string }> = [];
  for (let i = 0; i < CALLERS; i++) {
    workers.push(await api.ok('POST', '/v1/workers', { name: `Worker ${i}`, skills: ['crash'], reach: MAGIC.staysUp, status: 'offline' }));
  }
  const callers: Array<{ id: string }> = [];
  for (let i = 0; i < CALLERS; i++) {
    callers.push(await api.ok('POST', '/v1/calls', { from: account.numbers.sandbox[0], to: MAGIC.staysUp, flow: [{ enqueue: { queue: 'crash' } }, { hangup: {} }] }));
  }
  await receiver.waitFor(() => callers.every((c) => flowEventsOf(receiver!, c.id, 'call.queue.joined').length > 0), 60_000);

  // All workers free at once: routing offers callers one after another; the process dies at
  // the first offer it reports, with the others in flight.
  await Promise.all(workers.map((w) => api.ok('PATCH', `/v1/workers/${w.id}`, { status: 'available' })));
  await receiver.waitFor((events) => events.some((e) => e.type === 'worker.offered'), 60_000);
  const killed = current;
  killed.kill();
  const offeredBefore = receiver.events().filter((e) => e.type === 'worker.offered').length;
  await new Promise((resolve) => killed.process.once('exit', resolve));
  current = await start();

  const left = (id: string) => flowEventsOf(receiver!, id, 'call.queue.left');
  await receiver.waitFor(() => callers.every((c) => left(c.id).length > 0), 120_000)
    .catch((err: Error) => assert.fail(`${err.message}\nnot bridged: ${callers.filter((c) => left(c.id).length === 0).map((c) => c.id).join(', ')}\n${current.log()}`));
  for (const caller of callers) {
    const leaves = left(caller.id);
    assert.equal(leaves.length, 1, `${caller.id} left the queue once`);
    assert.equal(leaves[0]!.data.object.result, 'bridged', `${caller.id} was bridged`);
  }

  // No caller offered twice, and no worker offered while it held an offer or a call. Events are
  // durable and delivered concurrently: an offer's event can come after its caller's bridge.
  const offersNow = () => workers.flatMap((w) => eventsOf(receiver!, w.id).filter((e) => e.type === 'worker.offered')
    .map((e) => e.data.object.offer.caller_call_id as string));
  await receiver.waitFor(() => offersNow().length >= CALLERS, 30_000).catch(() => undefined);
  const offers = offersNow();
  t.diagnostic(`offers reported when the server was killed: ${offeredBefore} of ${CALLERS}`);
  assert.equal(new Set(offers).size, offers.length, `each caller offered once: ${offers.join(', ')}`);
  assert.deepEqual([...new Set(offers)].sort(), callers.map((c) => c.id).sort(), 'every caller was offered');
  for (const worker of workers) {
    const shown = await api.ok('GET', `/v1/workers/${worker.id}`);
    const workerOffers = eventsOf(receiver, worker.id).filter((e) => e.type === 'worker.offered');
    assert.ok(workerOffers.length <= 1, `${worker.id} was offered ${workerOffers.length} callers while busy with one`);
    assert.equal(shown.offer, null, `${worker.id} holds no offer`);
  }
  const members = await api.ok('GET', `/v1/queues/${(await api.ok('GET', '/v1/queues')).data[0].id}/members`);
  assert.deepEqual(members.data, [], 'nobody is left waiting');
});
