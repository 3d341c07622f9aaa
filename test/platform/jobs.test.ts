// The job queue is infrastructure with no HTTP surface of its own; these tests drive it
// through the real store (SQLite or PostgreSQL) the way modules use it.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.ts';
import { openDatabase, type Database } from '../../src/store/db.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { JobQueue } from '../../src/jobs/queue.ts';
import { SandboxClocks } from '../../src/jobs/sandbox-clocks.ts';
import { inTransaction } from '../../src/store/transaction.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { createTestStore, type TestStore } from '../helpers/database.ts';

const stores: TestStore[] = [];
const open: Database[] = [];
after(async () => {
  for (const d of open) await d.close().catch(() => {});
  for (const s of stores) await s.drop();
});

async function fresh(): Promise<{ store: TestStore; database: Database }> {
  const store = await createTestStore();
  stores.push(store);
  const database = openDatabase({ databaseUrl: store.databaseUrl, dataDir: store.dataDir });
  open.push(database);
  await migrateToLatest(database);
  return { store, database };
}

function queue(database: Database, errors: unknown[] = []): JobQueue {
  return new JobQueue(database, systemClock, { concurrency: 4, pollMs: 20, leaseMs: 30_000, onError: (e) => errors.push(e) });
}

function waitUntil(check: () => boolean, ms = 5000): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const tick = () => (check() ? resolve() : Date.now() - started > ms ? reject(new Error('timed out')) : setTimeout(tick, 10));
    tick();
  });
}

describe('durable job queue', () => {
  test('a job enqueued in a transaction that rolls back never runs', async () => {
    const { database } = await fresh();
    const q = queue(database);
    const ran: string[] = [];
    q.register('note', async (p: { text: string }) => { ran.push(p.text); });
    await inTransaction(database.db, async (trx) => { await q.enqueue(trx, 'note', { text: 'kept' }); });
    await assert.rejects(inTransaction(database.db, async (trx) => {
      await q.enqueue(trx, 'note', { text: 'rolled back' });
      throw new Error('boom');
    }));
    q.start();
    await waitUntil(() => ran.length === 1);
    await new Promise((r) => setTimeout(r, 100));
    await q.stop();
    assert.deepEqual(ran, ['kept']);
  });

  test('a failing job is retried with backoff, then kept as failed', async () => {
    const { database } = await fresh();
    const errors: unknown[] = [];
    const q = queue(database, errors);
    let attempts = 0;
    q.register('flaky', async () => {
      attempts++;
      if (attempts < 3) throw new Error(`attempt ${attempts} failed`);
    }, { maxAttempts: 5, backoffSeconds: () => 0.05 });
    q.register('hopeless', async () => { throw new Error('never works'); }, { maxAttempts: 2, backoffSeconds: () => 0.05 });
    await inTransaction(database.db, async (trx) => {
      await q.enqueue(trx, 'flaky', {});
      await q.enqueue(trx, 'hopeless', {});
    });
    q.start();
    await waitUntil(() => attempts === 3);
    await new Promise((r) => setTimeout(r, 300));
    await q.stop();
    const rows = await database.db.selectFrom('jobs').selectAll().execute();
    assert.equal(rows.length, 1, 'the succeeded job is gone');
    assert.equal(rows[0]!.kind, 'hopeless');
    assert.equal(rows[0]!.state, 'failed');
    assert.equal(rows[0]!.attempts, 2);
    assert.equal(rows[0]!.last_error, 'never works');
  });

  test('jobs survive a restart and run once due', async () => {
    const { store } = await fresh();
    const config = loadConfig({}, { dataDir: store.dataDir });
    const first = openDatabase({ databaseUrl: store.databaseUrl, dataDir: config.dataDir });
    const q1 = queue(first);
    q1.register('later', async () => {});
    await inTransaction(first.db, async (trx) => { await q1.enqueue(trx, 'later', { n: 1 }, { delaySeconds: 0.2 }); });
    await first.close();

    const second = openDatabase({ databaseUrl: store.databaseUrl, dataDir: config.dataDir });
    open.push(second);
    const q2 = queue(second);
    const ran: number[] = [];
    q2.register('later', async (p: { n: number }) => { ran.push(p.n); });
    q2.start();
    await waitUntil(() => ran.length === 1);
    await q2.stop();
    assert.deepEqual(ran, [1]);
  });

  test('a commit made while the worker is claiming still wakes it (no lost wake-ups)', async () => {
    const { database } = await fresh();
    // A 60 s poll: only a wake-up can run the job in time.
    const q = new JobQueue(database, systemClock, { concurrency: 4, pollMs: 60_000, leaseMs: 30_000, onError: () => {} });
    let ran = false;
    q.register('late', async () => { ran = true; });
    // Make the race certain: a request commits a job while the worker's claim is in flight,
    // after the claim looked and found nothing.
    const claim = (q as any).claim.bind(q);
    let injected = false;
    (q as any).claim = async (limit: number, clockId: string | null, lane: { name: string | null } | null) => {
      const rows = await claim(limit, clockId, lane);
      // The default lane's claim: the job below is of that lane.
      if (!injected && rows.length === 0 && lane?.name === null) {
        injected = true;
        await inTransaction(database.db, async (trx) => { await q.enqueue(trx, 'late', {}); });
      }
      return rows;
    };
    q.start();
    try {
      await waitUntil(() => ran, 10_000);
    } finally {
      await q.stop();
    }
    assert.ok(ran);
  });

  test('a job that runs longer than its lease keeps it: a second worker never runs it again', async () => {
    const { database } = await fresh();
    // A lease long enough that its renewal (a timer) is not missed on a loaded machine at nice 19.
    const slowWorker = new JobQueue(database, systemClock, { concurrency: 1, pollMs: 20, leaseMs: 1000, onError: () => {} });
    const otherWorker = new JobQueue(database, systemClock, { concurrency: 1, pollMs: 20, leaseMs: 1000, onError: () => {} });
    const runs: string[] = [];
    // Three leases long: without renewal the other worker finds the lease expired and runs it too.
    slowWorker.register('slow', async () => { runs.push('slow worker'); await new Promise((r) => setTimeout(r, 3000)); });
    otherWorker.register('slow', async () => { runs.push('other worker'); });
    await inTransaction(database.db, async (trx) => { await slowWorker.enqueue(trx, 'slow', {}); });
    slowWorker.start();
    await waitUntil(() => runs.length === 1);
    otherWorker.start();
    await new Promise((r) => setTimeout(r, 3500));
    await Promise.all([slowWorker.stop(), otherWorker.stop()]);
    assert.deepEqual(runs, ['slow worker']);
  });

  test('a webhook delivery runs in its own lane while every default slot is held by a long job', async () => {
    const { database } = await fresh();
    // One default slot, and a 60 s poll: the delivery can only run through its own lane's wake-up.
    const q = new JobQueue(database, systemClock, { concurrency: 1, laneConcurrency: { webhooks: 1 }, pollMs: 60_000, leaseMs: 30_000, onError: () => {} });
    const ran: string[] = [];
    let release!: () => void;
    const released = new Promise<void>((r) => { release = r; });
    q.register('carrier.submit', async (p: { n: number }) => { ran.push(`submit ${p.n}`); await released; });
    q.register('webhook.deliver', async () => { ran.push('delivery'); });
    await inTransaction(database.db, async (trx) => {
      await q.enqueue(trx, 'carrier.submit', { n: 1 });
      await q.enqueue(trx, 'carrier.submit', { n: 2 });
    });
    q.start();
    try {
      await waitUntil(() => ran.includes('submit 1'));
      await inTransaction(database.db, async (trx) => { await q.enqueue(trx, 'webhook.deliver', {}, { lane: 'webhooks' }); });
      await waitUntil(() => ran.includes('delivery'), 10_000);
      // The delivery did not wait for the default lane: its only slot is still held, its next job unclaimed.
      assert.deepEqual(ran, ['submit 1', 'delivery']);
      const rows = await database.db.selectFrom('jobs').select(['state', 'lane']).where('kind', '=', 'carrier.submit').orderBy('state').execute();
      assert.deepEqual(rows.map((r) => [r.state, r.lane]), [['pending', null], ['running', null]]);
      release();
      await waitUntil(() => ran.length === 3);
    } finally {
      release();
      await q.stop();
    }
    assert.deepEqual(ran, ['submit 1', 'delivery', 'submit 2']);
  });

  test('a job queued before lanes existed (lane null) still runs, whatever its kind', async () => {
    const { database } = await fresh();
    const q = queue(database);
    const ran: string[] = [];
    q.register('webhook.deliver', async () => { ran.push('delivery'); });
    await inTransaction(database.db, async (trx) => { await q.enqueue(trx, 'webhook.deliver', {}); });
    q.start();
    try {
      await waitUntil(() => ran.length === 1);
    } finally {
      await q.stop();
    }
    assert.deepEqual(ran, ['delivery']);
  });

  test('several workers never run the same job twice', async () => {
    const { database } = await fresh();
    const seen = new Map<number, number>();
    const workers = [queue(database), queue(database), queue(database)];
    for (const w of workers) w.register('count', async (p: { n: number }) => { seen.set(p.n, (seen.get(p.n) ?? 0) + 1); });
    await inTransaction(database.db, async (trx) => {
      for (let n = 0; n < 200; n++) await workers[0]!.enqueue(trx, 'count', { n });
    });
    workers.forEach((w) => w.start());
    await waitUntil(() => seen.size === 200, 15_000);
    await Promise.all(workers.map((w) => w.stop()));
    assert.ok([...seen.values()].every((c) => c === 1), 'each job ran exactly once');
  });

  // Several media nodes share PostgreSQL (docs/live-voice.md): a job acting on a live call
  // belongs to the node holding that call's media. SQLite is one node, and gives no job a node.
  test('a job given to a node is claimed only by the worker serving that node; jobs of no node by any', { skip: !process.env.DATABASE_URL }, async () => {
    const { database } = await fresh();
    const ranBy: Array<[string, string]> = [];
    const nodeA = queue(database);
    const nodeB = queue(database);
    nodeA.serveNode('node_a');
    nodeB.serveNode('node_b');
    nodeA.register('act', async (p: { n: string }) => { ranBy.push([p.n, 'a']); });
    nodeB.register('act', async (p: { n: string }) => { ranBy.push([p.n, 'b']); });
    await inTransaction(database.db, async (trx) => {
      for (let i = 0; i < 20; i++) await nodeB.enqueue(trx, 'act', { n: `for_a_${i}` }, { node: 'node_a' });
      for (let i = 0; i < 20; i++) await nodeA.enqueue(trx, 'act', { n: `for_b_${i}` }, { node: 'node_b' });
      for (let i = 0; i < 20; i++) await nodeA.enqueue(trx, 'act', { n: `any_${i}` });
    });
    nodeA.start();
    nodeB.start();
    await waitUntil(() => ranBy.length === 60, 15_000);
    await Promise.all([nodeA.stop(), nodeB.stop()]);
    assert.deepEqual(ranBy.filter(([n]) => n.startsWith('for_a_')).map(([, by]) => by), Array(20).fill('a'));
    assert.deepEqual(ranBy.filter(([n]) => n.startsWith('for_b_')).map(([, by]) => by), Array(20).fill('b'));
    assert.equal(new Set(ranBy.map(([n]) => n)).size, 60, 'each job ran once');
  });

  // The CI failure of 2026-11-26 (PostgreSQL): a port's review job read its clock, an advance
  // committed, then the job scheduled the FOC at an absolute sandbox time on the old offset;
  // the advance had shifted every job but that one, which was late by the whole advance.
  test('an advance cannot slip between a job reading its sandbox clock and scheduling at an absolute sandbox time', async () => {
    const { database } = await fresh();
    const q = queue(database);
    const clocks = new SandboxClocks(database, systemClock, q);
    const ran: string[] = [];
    q.register('at-foc', async () => { ran.push('at-foc'); });
    const account = 'acct_clock_race';
    const hourMs = 3_600_000;
    const target = systemClock.now().getTime() + hourMs; // an absolute sandbox time, an hour ahead
    let advancing: Promise<{ jobsRun: number }> | undefined;
    await inTransaction(database.db, async (trx) => {
      const clock = await clocks.lockedClockFor(trx, account, 'sandbox');
      advancing = clocks.advance(account, hourMs + 1000); // past the target, while we hold the clock
      await new Promise((resolve) => setTimeout(resolve, 150)); // room for the advance to slip in, if it could
      await q.enqueue(trx, 'at-foc', {}, { delaySeconds: (target - clock.now().getTime()) / 1000, clockId: account });
    });
    const { jobsRun } = await advancing!;
    assert.equal(jobsRun, 1, 'the advance waited for the scheduling transaction and ran the job it scheduled');
    assert.deepEqual(ran, ['at-foc']);
  });
});
