// Idempotent writes survive a crash at any moment (issue 11.2): 50 clients create keys,
// webhook endpoints, messages and calls with Idempotency-Keys until the server is SIGKILLed
// (keys and endpoints keep their key in a request-wide transaction, messages and calls in
// their service's own: issue 29); after a restart each
// request is retried with its key. Every acknowledged resource must exist exactly once, and
// no retry may create a second or be told to wait for a request that died with the process.
// The kill is made to land at the worst moment for one request (its handler done, its answer
// not yet stored: the X-Switchboard-Failpoint header, honoured only with
// SWITCHBOARD_TEST_FAILPOINTS), while the other clients' requests are cut off wherever they are.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createTestStore } from '../helpers/database.ts';

const root = new URL('../..', import.meta.url).pathname;
const CLIENTS = 50;
const KILL_AFTER_ACKS = 150;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

interface Sent { key: string; path: string; body: Record<string, unknown>; ackedId: string | null }

/** A server on `store` that can be SIGKILLed and started again, and its client. */
async function crashableServer() {
  const store = await createTestStore();
  const env = {
    ...process.env, DATABASE_URL: store.databaseUrl ?? '', SWITCHBOARD_LOG_LEVEL: 'error', SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE: 'true',
    SWITCHBOARD_TEST_FAILPOINTS: 'true',
  };
  const created = spawnSync(process.execPath, [join(root, 'bin/switchboard.js'), 'accounts', 'create', '--plan', 'enterprise', '--json', '--data-dir', store.dataDir], { env, encoding: 'utf8' });
  assert.equal(created.status, 0, created.stderr);
  const account = JSON.parse(created.stdout) as { keys: { sandbox: string }; numbers: { sandbox: string[] } };
  const apiKey = account.keys.sandbox;
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  let server: ChildProcess | null = null;

  async function start(): Promise<ChildProcess> {
    server = spawn(process.execPath, [join(root, 'bin/switchboard.js'), 'serve', '--port', String(port), '--data-dir', store.dataDir], { env, stdio: ['ignore', 'ignore', 'inherit'] });
    for (let i = 0; i < 1200; i++) {
      if (await fetch(`${base}/readyz`).then((r) => r.ok, () => false)) return server;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('server did not start');
  }
  async function kill(): Promise<void> {
    const child = server;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }
  const send = (s: Sent, failpoint = false) => fetch(base + s.path, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'idempotency-key': s.key,
      ...(failpoint ? { 'x-switchboard-failpoint': 'crash-before-response' } : {}),
    },
    body: JSON.stringify(s.body),
  });
  const get = async (path: string) => (await fetch(base + path, { headers: { authorization: `Bearer ${apiKey}` } })).json() as Promise<any>;
  async function listAll(path: string): Promise<any[]> {
    const all: any[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 1000; page++) {
      const body = await get(`${path}?limit=100${cursor ? `&starting_after=${cursor}` : ''}`);
      all.push(...body.data);
      if (!body.has_more) return all;
      cursor = body.next_cursor;
    }
    return all;
  }
  async function close(): Promise<void> {
    await kill();
    await store.drop();
  }
  return { number: account.numbers.sandbox[0]!, start, kill, send, listAll, close };
}

/** The n-th request of a client, in turn: each way of keeping a key. */
function nth(number: string, key: string, n: number): Sent {
  switch (n % 4) {
    case 0: return { key, path: '/v1/keys', body: { name: key, scopes: ['calls:read'] }, ackedId: null };
    case 1: return { key, path: '/v1/webhooks', body: { url: 'http://127.0.0.1:9/hook', description: key, events: ['webhook.test'] }, ackedId: null };
    case 2: return { key, path: '/v1/messages', body: { from: number, to: '+14155550100', body: `crash test ${key}`, metadata: { key } }, ackedId: null };
    default: return { key, path: '/v1/calls', body: { from: number, to: '+14155550100', record: false, metadata: { key } }, ackedId: null };
  }
}

/** How many of each request's resources exist, by its key (each kind names it its own way). */
async function resourcesByKey(server: Awaited<ReturnType<typeof crashableServer>>): Promise<{ count: Map<string, number>; ids: Set<string> }> {
  const keys = (await server.listAll('/v1/keys')).filter((k) => String(k.name).startsWith('crash-')).map((k) => ({ id: k.id, key: String(k.name) }));
  const hooks = (await server.listAll('/v1/webhooks')).filter((w) => String(w.description ?? '').startsWith('crash-')).map((w) => ({ id: w.id, key: String(w.description) }));
  const messages = (await server.listAll('/v1/messages')).filter((m) => m.metadata?.key).map((m) => ({ id: m.id, key: String(m.metadata.key) }));
  const calls = (await server.listAll('/v1/calls')).filter((c) => c.metadata?.key).map((c) => ({ id: c.id, key: String(c.metadata.key) }));
  const count = new Map<string, number>();
  const all = [...keys, ...hooks, ...messages, ...calls];
  for (const { key } of all) count.set(key, (count.get(key) ?? 0) + 1);
  return { count, ids: new Set(all.map((r) => r.id)) };
}

test('a SIGKILL under 50 concurrent idempotent writers creates no duplicate and loses no acknowledged write', { timeout: 600_000 }, async () => {
  const server = await crashableServer();
  const { start, send } = server;
  try {
    const sent: Sent[] = [];
    let acks = 0;
    let down = false;
    let fired: Sent | null = null;
    const child = await start();
    const killed = new Promise<void>((resolve) => child.once('exit', () => { down = true; resolve(); }));
    await Promise.all(Array.from({ length: CLIENTS }, async (_, client) => {
      for (let n = 0; !down; n++) {
        const key = `crash-${client}-${n}`;
        const s = nth(server.number, key, n + client);
        sent.push(s);
        const failpoint = acks >= KILL_AFTER_ACKS && fired === null;
        if (failpoint) fired = s;
        const res = await send(s, failpoint).catch(() => null);
        if (res?.status === 200) {
          s.ackedId = ((await res.json()) as { id: string }).id;
          acks++;
        }
      }
    }));
    await killed;
    const inFlight = sent.filter((s) => s.ackedId === null).length;
    assert.ok(fired && (fired as Sent).ackedId === null, 'the failpoint request was cut off by the kill');

    await start();
    // Every request again, with its key and body: a replay or (if it never committed) a first run.
    const outcomes = await Promise.all(sent.map(async (s) => {
      const res = await send(s);
      const body = await res.json() as { id: string; code?: string };
      return { s, status: res.status, replayed: res.headers.get('idempotent-replayed') === 'true', id: body.id, code: body.code };
    }));
    const bad = outcomes.filter((o) => o.status !== 200).map((o) => `${o.s.key}: ${o.status} ${o.code}`);
    assert.deepEqual(bad, [], 'no retry is refused (no 409 for a request that died with the server)');
    for (const o of outcomes) {
      if (o.s.ackedId) {
        assert.equal(o.replayed, true, `${o.s.key} was acknowledged, so its retry replays`);
        assert.equal(o.id, o.s.ackedId, `${o.s.key} replays the same resource`);
      }
    }

    const { count, ids } = await resourcesByKey(server);
    const duplicated = [...count].filter(([, c]) => c > 1).map(([key]) => key);
    assert.deepEqual(duplicated, [], 'no request created two resources');
    const missing = sent.filter((s) => count.get(s.key) !== 1).map((s) => s.key);
    assert.deepEqual(missing, [], 'every request exists exactly once after its retry');
    for (const s of sent) if (s.ackedId) assert.ok(ids.has(s.ackedId), `${s.key}: acknowledged ${s.ackedId} exists`);
    console.log(`idempotency crash: ${sent.length} requests, ${acks} acknowledged before the kill, ${inFlight} cut off, ${outcomes.filter((o) => o.replayed).length} replayed after restart`);
  } finally {
    await server.close();
  }
});

// A write kept in its service's transaction has committed its change and its answer before
// the failpoint: the kill lands after the commit, before the answer reaches the client.
for (const path of ['/v1/messages', '/v1/calls']) {
  test(`a SIGKILL after ${path} committed, before its answer was sent: the retry replays it and nothing is made twice`, { timeout: 120_000 }, async () => {
    const server = await crashableServer();
    try {
      const child = await server.start();
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      const s = nth(server.number, 'crash-after-commit', path === '/v1/messages' ? 2 : 3);
      const cut = await server.send(s, true).then(() => 'answered', () => 'cut off');
      await exited;
      assert.equal(cut, 'cut off', 'the failpoint killed the server before it answered');
      await server.start();
      const retry = await server.send(s);
      assert.equal(retry.status, 200);
      assert.equal(retry.headers.get('idempotent-replayed'), 'true', 'the change committed with its answer, so the retry replays it');
      const replayed = (await retry.json()) as { id: string };
      const { count, ids } = await resourcesByKey(server);
      assert.equal(count.get(s.key), 1, 'one resource for the key');
      assert.ok(ids.has(replayed.id), 'the replay names the resource that exists');
    } finally {
      await server.close();
    }
  });
}
