// A server that stops in the middle of a call must not lose it: every simulated carrier
// step is a durable job, so the next process finishes the call, with all its events.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { startTestServer, TEST_ENV } from '../helpers/server.ts';
import { createTestStore, type TestStore } from '../helpers/database.ts';
import { startServer } from '../../src/main.ts';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { ORDINARY, waitForTypes } from './voice-helpers.ts';
import { subscribeAll } from '../helpers/subscribe.ts';

const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

test('a graceful restart mid-call: the new server completes the call and sends the rest of its events', async () => {
  // 0.3 s of ring and 1.5 s of talk: long enough to stop the server while the call is up.
  const t = await startTestServer({ SWITCHBOARD_SIM_TIME_SCALE: '0.3' });
  cleanups.push(() => t.store.drop());
  const acct = await t.createAccount('scale');
  const receiver = await subscribeAll(t, acct.keys.sandbox);
  cleanups.push(() => receiver.close());
  const call = (await t.as(acct.keys.sandbox).post('/v1/calls', { from: acct.numbers.sandbox[0], to: ORDINARY, record: true })).body;
  await receiver.waitForEvent('call.answered', call.id);
  await t.server.close();

  const second = await startServer(t.config, { logger: false });
  cleanups.push(() => second.close());
  await waitForTypes(receiver, call.id, ['call.queued', 'call.ringing', 'call.answered', 'call.completed']);
  const ready = await receiver.waitForEvent('call.recording.ready');
  assert.equal(ready.data.object.call_id, call.id);
  const res = await fetch(`${second.url}/v1/calls/${call.id}`, { headers: { authorization: `Bearer ${acct.keys.sandbox}` } });
  const body = await res.json() as any;
  assert.equal(body.status, 'completed');
  assert.equal(body.duration_seconds, 5);
});

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** `node bin/switchboard.js serve` over `store`; resolves with its stdout once it listens. */
async function spawnServer(store: TestStore, port: number): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, ['bin/switchboard.js', 'serve'], {
    env: {
      ...process.env, ...TEST_ENV,
      SWITCHBOARD_SIM_TIME_SCALE: '0.5', SWITCHBOARD_DATA_DIR: store.dataDir, SWITCHBOARD_PORT: String(port), SWITCHBOARD_LOG_LEVEL: 'warn',
      ...(store.databaseUrl ? { DATABASE_URL: store.databaseUrl } : { DATABASE_URL: '' }),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  for (let i = 0; i < 300; i++) {
    const up = await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false);
    if (up) return { child, output: () => out };
    if (child.exitCode !== null) throw new Error(`server exited: ${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`server did not start: ${out}`);
}

test('a hard kill (SIGKILL) of `switchboard serve` mid-call: the next process finishes the call', async () => {
  const store = await createTestStore();
  cleanups.push(() => store.drop());
  const port = await freePort();
  const first = await spawnServer(store, port);
  const killFirst = () => {
    if (first.child.exitCode === null) first.child.kill('SIGKILL');
  };
  cleanups.push(async () => killFirst());
  // The first run on an empty store prints a trial account's keys and sandbox number.
  const key = /sandbox key\s+(sb_test_\S+)/.exec(first.output())?.[1];
  const number = /sandbox number\s+(\+\d+)/.exec(first.output())?.[1];
  assert.ok(key && number, first.output());
  const base = `http://127.0.0.1:${port}`;
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(base + path, {
      method, headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: await res.json() as any };
  };

  const receiver: WebhookReceiver = await startReceiver();
  cleanups.push(() => receiver.close());
  receiver.secrets.push((await call('GET', '/v1/webhooks/default_secret')).body.secret);
  receiver.secrets.push((await call('POST', '/v1/webhooks', { url: receiver.url, events: ['*'] })).body.secret);

  const placed = await call('POST', '/v1/calls', { from: number, to: ORDINARY, record: false });
  assert.equal(placed.status, 200, JSON.stringify(placed.body));
  await receiver.waitForEvent('call.answered', placed.body.id);
  first.child.kill('SIGKILL');
  await new Promise((resolve) => first.child.once('exit', resolve));
  const during = receiver.events().filter((e) => e.data.object.id === placed.body.id).map((e) => e.type);
  assert.ok(!during.includes('call.completed'), 'killed before the call ended');

  const second = await spawnServer(store, port);
  cleanups.push(async () => {
    if (second.child.exitCode === null) {
      second.child.kill('SIGTERM');
      await new Promise((resolve) => second.child.once('exit', resolve));
    }
  });
  await waitForTypes(receiver, placed.body.id, ['call.queued', 'call.ringing', 'call.answered', 'call.completed'], 30_000);
  const final = await call('GET', `/v1/calls/${placed.body.id}`);
  assert.equal(final.body.status, 'completed');
  assert.equal(final.body.duration_seconds, 5);
});
