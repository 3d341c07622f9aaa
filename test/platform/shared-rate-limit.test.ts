// Rate limits shared by every node (docs/api.md, "Rate limits"): on PostgreSQL two real server
// processes on one database spend one bucket per account and one per client address, tell the
// same remaining count, and refuse with 429 when the plan says, whichever node is asked. On
// SQLite one node is the deployment: that part is skipped, and asking for database buckets
// there is refused at start. Either store: a limiter whose database does not answer fails open
// to local buckets instead of holding the request.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { NODES_SECRET_KEY, startSecondNode, type SecondNode } from '../helpers/second-node.ts';
import { postgresUrl } from '../helpers/database.ts';
import { openDatabase } from '../../src/store/db.ts';
import { SharedRateLimiter } from '../../src/platform/shared-rate-limiter.ts';

const SQLITE_SKIP = 'SQLite is one node: its buckets are in memory, and test/platform/rate-limit.test.ts covers them';

interface Answer { status: number; remaining: number; policy: string | null; retryAfter: string | null; code?: string }

async function ask(base: string, key?: string): Promise<Answer> {
  const res = await fetch(`${base}/v1/account`, { headers: key ? { authorization: `Bearer ${key}` } : {} });
  const body = await res.json() as { code?: string };
  return {
    status: res.status,
    remaining: Number(res.headers.get('x-switchboard-ratelimit-remaining')),
    policy: res.headers.get('ratelimit-policy'),
    retryAfter: res.headers.get('retry-after'),
    ...(body.code ? { code: body.code } : {}),
  };
}

describe('two nodes on one PostgreSQL database share every bucket', { skip: postgresUrl ? false : SQLITE_SKIP }, () => {
  let t: TestServer;
  let other: SecondNode;
  before(async () => {
    t = await startTestServer({ SWITCHBOARD_SECRET_KEY: NODES_SECRET_KEY });
    other = await startSecondNode({ databaseUrl: t.store.databaseUrl! });
  });
  after(async () => {
    other?.kill();
    await t?.close();
  });

  test('an account on a small plan spends its budget across both nodes, and the 429 comes when the plan says', async () => {
    const acct = await t.createAccount('trial');
    // Four a minute: one token back every 15 s, so the loop below sees almost no refill.
    await t.server.built.services.accounts.update(acct.account.id, { rateLimitPerMinute: 4 });
    const nodes = [other.url, t.url];
    const started = Date.now();
    const answers: Answer[] = [];
    for (let i = 0; i < 6; i++) answers.push(await ask(nodes[i % 2]!, acct.keys.sandbox));
    const refilled = Math.floor((Date.now() - started) / 15_000);

    for (const a of answers) assert.equal(a.policy, '4;w=60', 'both nodes apply the plan');
    const allowed = answers.filter((a) => a.status === 200);
    assert.ok(allowed.length >= 4 && allowed.length <= 4 + refilled, `${allowed.length} allowed of a budget of 4 (${refilled} refilled)`);
    if (refilled === 0) {
      // One bucket: each node's count continues the other's (per-node buckets would say 3, 3, 2, 2).
      assert.deepEqual(answers.map((a) => a.status), [200, 200, 200, 200, 429, 429]);
      assert.deepEqual(answers.slice(0, 4).map((a) => a.remaining), [3, 2, 1, 0]);
    }
    for (const refused of answers.filter((a) => a.status === 429)) {
      assert.equal(refused.code, 'rate_limited');
      assert.equal(refused.remaining, 0);
      const wait = Number(refused.retryAfter);
      assert.ok(wait >= 1 && wait <= 15, `Retry-After ${refused.retryAfter}: at most one token's time (15 s)`);
    }
  });

  test('requests without a key spend one bucket per client address across both nodes', async () => {
    const nodes = [other.url, t.url];
    const started = Date.now();
    const answers: Answer[] = [];
    for (let i = 0; i < 130 && answers.at(-1)?.status !== 429; i++) answers.push(await ask(nodes[i % 2]!));
    const refilled = Math.ceil((Date.now() - started) / 1000);

    const spent = answers.filter((a) => a.status === 401);
    assert.equal(answers.at(-1)?.status, 429, 'the address was refused');
    assert.equal(answers.at(-1)?.code, 'rate_limited');
    // Per-node buckets would allow 120 before a refusal; one shared bucket allows 60 (plus what refilled).
    assert.ok(spent.length >= 60 && spent.length <= 60 + refilled, `${spent.length} answered before the 429 (${refilled} s of refill)`);
    // The counts the two nodes report interleave into one countdown.
    for (let i = 1; i < spent.length; i++) {
      assert.ok(spent[i]!.remaining <= spent[i - 1]!.remaining + refilled, `remaining ${spent[i - 1]!.remaining} then ${spent[i]!.remaining} on the other node`);
    }
  });
});

describe('on SQLite', { skip: postgresUrl ? 'runs on SQLite only' : false }, () => {
  test('asking for database buckets is refused at start: one node keeps them in memory', async () => {
    await assert.rejects(startTestServer({ SWITCHBOARD_RATE_LIMIT_STORE: 'database' }), /SWITCHBOARD_RATE_LIMIT_STORE=database needs PostgreSQL/);
  });
});

describe('a shared limiter whose database does not answer', () => {
  let blackhole: Server;
  const sockets = new Set<Socket>();
  let t: TestServer;
  let closeDatabase: () => Promise<void>;
  const warnings: string[] = [];

  before(async () => {
    // Accepts connections and never says a word: a PostgreSQL that hangs.
    blackhole = createServer((socket) => { sockets.add(socket); socket.on('close', () => sockets.delete(socket)); });
    await new Promise<void>((resolve) => blackhole.listen(0, '127.0.0.1', resolve));
    const port = (blackhole.address() as { port: number }).port;
    const silent = openDatabase({ databaseUrl: `postgres://nobody@127.0.0.1:${port}/nothing`, dataDir: '/nonexistent' });
    closeDatabase = () => silent.close();
    const log = { warn: (_: object, msg: string) => { warnings.push(msg); }, info: () => {} };
    t = await startTestServer({}, { limiter: new SharedRateLimiter(silent.db, log, { timeoutMs: 200, localForMs: 60_000 }) });
  });
  after(async () => {
    await t?.close();
    for (const socket of sockets) socket.destroy();
    await closeDatabase?.();
    blackhole?.close();
  });

  test('fails open to this node\'s buckets, says so once, and still limits', async () => {
    const acct = await t.createAccount('trial');
    const first = await ask(t.url, acct.keys.sandbox);
    const firstAt = Date.now();
    assert.equal(first.status, 200, 'the request was answered, not held');
    assert.equal(first.remaining, 59);
    // Four more: the bucket (60 a minute) takes one each and gives one back a second, so on a
    // slow machine the count is bounded by the time the requests took, not fixed.
    let last = first;
    for (let i = 0; i < 4; i++) last = await ask(t.url, acct.keys.sandbox);
    const refilled = Math.ceil((Date.now() - firstAt) / 1000);
    assert.ok(last.remaining <= 59 - 4 + refilled, `the local bucket counts on: ${last.remaining} left after 5 requests in ${refilled} s`);
    const anonymous = await ask(t.url);
    assert.equal(anonymous.status, 401);
    assert.ok(Number.isInteger(anonymous.remaining), 'anonymous requests carry their headers too');
    assert.equal(warnings.length, 1, `one warning for the outage, not one per request: ${warnings.join(' | ')}`);
    assert.match(warnings[0]!, /database did not answer/);
  });
});
