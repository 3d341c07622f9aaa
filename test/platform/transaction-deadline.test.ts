// Test lane: real-time (scripts/test.mjs): it measures that other tenants are answered within 4 s
// while a transaction is held.
// Every database transaction has a deadline (SWITCHBOARD_TRANSACTION_TIMEOUT_MS): one that
// outlives it is rolled back, its request answers 503 transaction_timeout with Retry-After,
// and everyone else keeps being served. The wait is forced with the test-only failpoint
// `X-Switchboard-Failpoint: hold-transaction:<ms>`, which holds a transaction open.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type CreatedAccount, type TestServer } from '../helpers/server.ts';

// Long enough for any real transaction of these tests on a loaded machine, short for a test.
const DEADLINE_MS = 1000;
const hold = (ms: number) => ({ 'x-switchboard-failpoint': `hold-transaction:${ms}` });

async function timed<T>(p: Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await p;
  return { value, ms: Date.now() - started };
}

function assertTimeoutProblem(res: { status: number; headers: Headers; body: any }): void {
  assert.equal(res.status, 503, JSON.stringify(res.body));
  assert.equal(res.body.code, 'transaction_timeout');
  assert.equal(res.body.type, 'https://switchboard.dev/problems/transaction_timeout');
  assert.match(res.body.detail, /rolled back/);
  assert.match(res.body.detail, /Retry/);
  assert.equal(res.headers.get('retry-after'), '1');
  assert.match(res.headers.get('content-type') ?? '', /application\/problem\+json/);
  assert.ok(res.headers.get('x-switchboard-ratelimit-remaining') !== null, 'rate-limit headers on the 503 too');
}

describe('the transaction deadline', () => {
  let t: TestServer;
  let held: CreatedAccount;
  let bystander: CreatedAccount;
  before(async () => {
    t = await startTestServer({ SWITCHBOARD_TRANSACTION_TIMEOUT_MS: String(DEADLINE_MS), SWITCHBOARD_TEST_FAILPOINTS: 'true' });
    held = await t.createAccount('scale', 'held');
    bystander = await t.createAccount('scale', 'bystander');
  });
  after(async () => {
    await t?.close();
  });

  test('an idempotent write held past the deadline answers 503 at the deadline, saved nothing, and its retry runs', async () => {
    // A webhook endpoint: a write whose claim, changes and answer are one request-wide
    // transaction (the sandbox clock advance keeps its key itself, outside one).
    const api = t.as(held.keys.sandbox);
    const endpoint = { url: 'http://127.0.0.1:9/held', events: ['call.completed'] };
    const pending = timed(api.post('/v1/webhooks', endpoint, { idempotencyKey: 'held-1', headers: hold(6000) }));
    // Meanwhile another account is served: on SQLite once the deadline freed the writer.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const other = await timed(t.as(bystander.keys.sandbox).get('/v1/calls'));
    assert.equal(other.value.status, 200);
    assert.ok(other.ms < 3000, `another account waited ${other.ms} ms`);

    const { value: res, ms } = await pending;
    assertTimeoutProblem(res);
    assert.ok(ms < 5000, `the 503 came at the deadline, not when the held work ended (${ms} ms)`);
    const held1 = async () => (await api.get('/v1/webhooks')).body.data.filter((w: any) => w.url === endpoint.url);
    assert.equal((await held1()).length, 0, 'the write was rolled back');

    // The key was released with the rollback: the same request again runs, once.
    const retry = await api.post('/v1/webhooks', endpoint, { idempotencyKey: 'held-1' });
    assert.equal(retry.status, 200, JSON.stringify(retry.body));
    const replay = await api.post('/v1/webhooks', endpoint, { idempotencyKey: 'held-1' });
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.equal(replay.body.id, retry.body.id);
    assert.equal((await held1()).length, 1);
  });

  test('a write without a key held past the deadline answers 503, and the writer is free for others meanwhile', async () => {
    const api = t.as(held.keys.sandbox);
    const before = (await api.get('/v1/sandbox/clock')).body.offset_seconds;
    const pending = api.post('/v1/sandbox/clock/advance', { seconds: 5 }, { headers: hold(2500) });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const other = await timed(t.as(bystander.keys.sandbox).post('/v1/sandbox/clock/advance', { seconds: 1 }));
    assert.equal(other.value.status, 200, JSON.stringify(other.value.body));
    assert.ok(other.ms < 2500, `another account's write waited ${other.ms} ms`);
    assertTimeoutProblem(await pending);
    assert.equal((await api.get('/v1/sandbox/clock')).body.offset_seconds, before, 'the held write changed nothing');
  });

  test('/readyz counts the transactions the deadline rolled back', async () => {
    const ready = await t.request('GET', '/readyz');
    assert.equal(ready.status, 200);
    assert.equal(ready.body.status, 'ready');
    assert.ok(ready.body.transaction_timeouts >= 2, JSON.stringify(ready.body));
  });
});

describe('/readyz when the store is stuck', () => {
  let t: TestServer;
  let acct: CreatedAccount;
  before(async () => {
    // A deadline longer than the hold: the store stays stuck for the whole hold.
    t = await startTestServer({ SWITCHBOARD_TRANSACTION_TIMEOUT_MS: '20000', SWITCHBOARD_TEST_FAILPOINTS: 'true' });
    acct = await t.createAccount('scale', 'stuck');
  });
  after(async () => {
    await t?.close();
  });

  test('answers 503 with the reason within its bound, /healthz still 200, and ready again once the store moves', async () => {
    // SQLite: one held transaction holds the one writer. PostgreSQL: ten hold every pooled connection.
    const holders = t.store.engine === 'postgres' ? 10 : 1;
    const api = t.as(acct.keys.sandbox);
    // Held long enough that all holders have begun on a loaded machine before /readyz probes.
    const held = Promise.all(Array.from({ length: holders }, () => api.post('/v1/sandbox/clock/advance', { seconds: 1 }, { headers: hold(8000) })));
    await new Promise((resolve) => setTimeout(resolve, 1000));

    const ready = await timed(t.request('GET', '/readyz'));
    assert.equal(ready.value.status, 503, JSON.stringify(ready.value.body));
    assert.equal(ready.value.body.status, 'unavailable');
    assert.match(ready.value.body.reason, /did not answer a read within 2000 ms/);
    assert.ok(ready.ms < 4000, `/readyz answered after ${ms(ready.ms)}`);
    const health = await t.request('GET', '/healthz');
    assert.equal(health.status, 200, 'liveness is not readiness: restarting would not unstick the database');

    // Concurrent advances of one clock may race for its first row (409 conflict, retry advice).
    for (const res of await held) assert.ok([200, 409].includes(res.status), JSON.stringify(res.body));
    const again = await t.request('GET', '/readyz');
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(typeof again.body.transaction_timeouts, 'number', 'the count of the process (one registry per process)');
  });
});

const ms = (n: number) => `${n} ms`;
