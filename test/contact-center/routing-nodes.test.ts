// Routing on two nodes (issue 26, "Tests"): two server processes on one PostgreSQL database,
// 20 sandbox callers placed through both nodes' HTTP into one routed queue, 5 sandbox workers
// who answer, some callers hanging up while they wait, the rest hung up once connected, each
// request sent to either node. Both nodes run the routing jobs, so offers race across
// processes. Every caller must leave the queue exactly once, bridged or abandoned; a bridged
// caller was offered once; no worker is offered a second caller while one rings or talks; and
// the durable records (members, queue and worker statistics) agree with the webhooks. On SQLite
// one process owns the file, so one node is the deployment: this runs on PostgreSQL only.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type CreatedAccount, type TestServer } from '../helpers/server.ts';
import { NODES_SECRET_KEY, startSecondNode, type SecondNode } from '../helpers/second-node.ts';
import { subscribeAll } from '../helpers/subscribe.ts';
import type { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { MAGIC, eventsOf } from '../voice/voice-helpers.ts';
import { flowEventsOf } from '../voice/flow-helpers.ts';

const onPostgres = Boolean(process.env.DATABASE_URL);
if (!onPostgres) console.error('\n(test/contact-center/routing-nodes.test.ts runs on PostgreSQL only: on SQLite one node is the deployment.)\n');

const CALLERS = 20;
const WORKERS = 5;
/** Callers who hang up while they wait (or while offered: either way they leave once). */
const ABANDONING = 5;

let t: TestServer;
let acct: CreatedAccount;
let receiver: WebhookReceiver;
let nodeB: SecondNode | undefined;

type Client = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>;
let nodes: Client[] = [];

function clientOf(url: string, key: string): Client {
  return async (method, path, body) => {
    const res = await fetch(url + path, {
      method, headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };
}

function ok(res: { status: number; body: any }) {
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

/** Each caller's call.queue.left events, de-duplicated (a webhook may be delivered twice). */
const leftOf = (callId: string) => flowEventsOf(receiver, callId, 'call.queue.left');

before(async () => {
  if (!onPostgres) return;
  t = await startTestServer({ SWITCHBOARD_SECRET_KEY: NODES_SECRET_KEY });
  acct = await t.createAccount('scale');
  receiver = await subscribeAll(t, acct.keys.sandbox);
  nodeB = await startSecondNode({ databaseUrl: t.store.databaseUrl! });
  nodes = [clientOf(t.url, acct.keys.sandbox), clientOf(nodeB.url, acct.keys.sandbox)];
});

after(async () => {
  nodeB?.kill();
  await receiver?.close();
  await t?.close();
});

describe('routing on two nodes', { skip: !onPostgres && 'PostgreSQL only: on SQLite one process owns the database, so one node is the deployment' }, () => {
  test(`${CALLERS} callers and ${WORKERS} workers across two nodes: every caller bridged or abandoned exactly once, one offer per worker at a time`, async () => {
    const node = (i: number) => nodes[i % 2]!;
    const from = acct.numbers.sandbox[0]!;
    const queue = ok(await node(0)('POST', '/v1/queues', { name: 'crowd', wait_flow: [{ pause: { seconds: 600 } }], routing: { required_skills: [] } }));
    const workers: any[] = await Promise.all(Array.from({ length: WORKERS }, (_, i) =>
      node(i)('POST', '/v1/workers', { name: `w${i}`, reach: MAGIC.staysUp, status: 'available', wrap_up_seconds: 5 }).then(ok)));
    const callers: string[] = (await Promise.all(Array.from({ length: CALLERS }, (_, i) =>
      node(i)('POST', '/v1/calls', { from, to: MAGIC.staysUp, flow: [{ enqueue: { queue: 'crowd' } }, { hangup: {} }] }).then(ok)))).map((c) => c.id);
    await receiver.waitFor(() => callers.every((id) => flowEventsOf(receiver, id, 'call.queue.joined').length > 0), 60_000);

    const offersOf = (workerId: string) => eventsOf(receiver, workerId).filter((e) => e.type === 'worker.offered');
    const offeredCallers = () => workers.flatMap((w) => offersOf(w.id).map((e) => e.data.object.offer.caller_call_id as string));

    // The last callers, not offered yet when looked at, give up (through the other node than the one that placed them).
    const offeredSoFar = new Set(offeredCallers());
    const abandoning = callers.map((id, i) => ({ id, i })).filter(({ id }) => !offeredSoFar.has(id)).slice(-ABANDONING);
    assert.equal(abandoning.length, ABANDONING, 'with 5 workers, at least 15 callers wait');
    const hungUp = new Set<string>();
    await Promise.all(abandoning.map(({ id, i }) => node(i + 1)('POST', `/v1/calls/${id}/hangup`, {}).then(ok).then(() => hungUp.add(id))));

    // The rest: hang up each caller once it is bridged, so its worker takes the next.
    const hangUpBridged = (round: number) => Promise.all(callers.filter((id) => !hungUp.has(id) && leftOf(id).some((e) => e.data.object.result === 'bridged'))
      .map((id) => node(round)('POST', `/v1/calls/${id}/hangup`, {}).then(ok).then(() => hungUp.add(id))));
    for (let round = 0; round < 600 && !callers.every((id) => leftOf(id).length > 0); round++) {
      await hangUpBridged(round);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const stuck = callers.filter((id) => leftOf(id).length === 0);
    assert.deepEqual(stuck, [], `callers who never left the queue\nnode B said:\n${nodeB!.log()}`);
    await hangUpBridged(0);
    for (const id of callers) await receiver.waitForEvent('call.completed', id);

    // Every caller left exactly once, bridged or abandoned.
    const results = new Map(callers.map((id) => [id, leftOf(id).map((e) => e.data.object.result as string)]));
    for (const [id, left] of results) {
      assert.equal(left.length, 1, `${id} left the queue ${left.length} times: ${left.join(', ')}`);
      assert.ok(['bridged', 'hangup'].includes(left[0]!), `${id} left ${left[0]}`);
      assert.equal(flowEventsOf(receiver, id, 'call.queue.joined').length, 1, `${id} joined once`);
    }
    const bridged = callers.filter((id) => results.get(id)![0] === 'bridged');
    const abandoned = callers.filter((id) => results.get(id)![0] === 'hangup');
    assert.equal(bridged.length + abandoned.length, CALLERS);
    assert.ok(bridged.length >= CALLERS - ABANDONING, `bridged ${bridged.length}`);

    // A bridged caller was offered exactly once (these workers always answer); none twice.
    const offers = offeredCallers();
    for (const id of bridged) assert.equal(offers.filter((o) => o === id).length, 1, `${id} offered ${offers.filter((o) => o === id).length} times`);
    for (const id of abandoned) assert.ok(offers.filter((o) => o === id).length <= 1, `${id} offered twice`);

    // Per worker, in order: an offer is always followed by its answer (busy), never by another offer.
    await receiver.waitFor(() => workers.every((w) => (eventsOf(receiver, w.id).at(-1)?.data.object.status ?? 'available') === 'available'), 30_000);
    let connected = 0;
    for (const w of workers) {
      const moves = eventsOf(receiver, w.id).map((e) => e.type === 'worker.status_changed' ? e.data.object.status : e.type);
      for (let i = 0; i < moves.length; i++) {
        if (moves[i] === 'worker.offered') assert.equal(moves[i + 1], 'busy', `${w.id}: ${moves.join(', ')}`);
      }
      connected += moves.filter((m) => m === 'worker.connected').length;
    }
    assert.equal(connected, offers.length, 'every offer was answered');

    // The durable records agree, read through either node.
    for (const client of nodes) {
      assert.deepEqual(ok(await client('GET', `/v1/queues/${queue.id}/members`)).data, [], 'nobody is left waiting');
      const stats = ok(await client('GET', `/v1/queues/${queue.id}/stats?window_minutes=1440`));
      assert.deepEqual([stats.waiting, stats.answered, stats.abandoned], [0, bridged.length, abandoned.length]);
      let handled = 0;
      for (const w of workers) {
        const row = ok(await client('GET', `/v1/workers/${w.id}`));
        assert.deepEqual([row.status, row.offer, row.current_call_id], ['available', null, null], `${w.id} is free`);
        const workerStats = ok(await client('GET', `/v1/workers/${w.id}/stats?window_minutes=1440`));
        assert.equal(workerStats.calls_missed, 0);
        handled += workerStats.calls_handled;
      }
      assert.equal(handled, bridged.length, 'the workers\' statistics count every bridged caller once');
    }
  });
});
