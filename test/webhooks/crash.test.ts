// The outbox survives crashes: 2,000 test events are emitted through the API while the
// server process is killed with SIGKILL twice and restarted; every event that committed
// (read back from GET /v1/events afterwards) reaches the receiver at least once.
// On SQLite a restart releases the dead process's running jobs at once; on PostgreSQL
// their leases expire (SWITCHBOARD_JOB_LEASE_MS, short here).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createTestStore } from '../helpers/database.ts';
import { startReceiver } from '../helpers/webhook-receiver.ts';

const root = new URL('../..', import.meta.url).pathname;
const TOTAL = 2000;
const KILL_AT = [500, 1200];

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

test('no committed event is lost when the server is SIGKILLed twice', { timeout: 900_000 }, async () => {
  const store = await createTestStore();
  const env = {
    ...process.env,
    DATABASE_URL: store.databaseUrl ?? '',
    SWITCHBOARD_LOG_LEVEL: 'error',
    SWITCHBOARD_JOB_LEASE_MS: '1500',
    SWITCHBOARD_WORKER_POLL_MS: '50',
    SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE: 'true',
    SWITCHBOARD_WEBHOOK_RETRY_SCHEDULE: '0.2,0.5,1,2,2',
  };
  const created = spawnSync(process.execPath, [join(root, 'bin/switchboard.js'), 'accounts', 'create', '--plan', 'enterprise', '--json', '--data-dir', store.dataDir], { env, encoding: 'utf8' });
  assert.equal(created.status, 0, created.stderr);
  const key = JSON.parse(created.stdout).keys.sandbox as string;
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const receiver = await startReceiver();
  let server: ChildProcess | null = null;

  async function start(): Promise<void> {
    server = spawn(process.execPath, [join(root, 'bin/switchboard.js'), 'serve', '--port', String(port), '--data-dir', store.dataDir], { env, stdio: ['ignore', 'ignore', 'inherit'] });
    // Generous, like test/helpers/second-node.ts: `serve` runs its sources through tsx at every
    // start, and on a loaded machine (two cores shared by several suites) one start took 43 s.
    for (let i = 0; i < 1800; i++) {
      if (server.exitCode !== null) throw new Error(`the server exited with ${server.exitCode} before it was ready`);
      if (await fetch(`${base}/readyz`).then((r) => r.ok, () => false)) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('server did not start within 180 s');
  }
  async function kill(): Promise<void> {
    const child = server!;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }
  const api = (method: string, path: string, body?: unknown) => fetch(base + path, {
    method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
  });

  try {
    await start();
    const wh = await (await api('POST', '/v1/webhooks', { url: receiver.url, events: ['webhook.test'] })).json() as { id: string; secret: string };
    receiver.secrets.push(wh.secret);

    let ok = 0;
    let killing: Promise<void> | null = null;
    const kills = [...KILL_AT];
    const workers = Array.from({ length: 8 }, async () => {
      for (let guard = 0; guard < TOTAL * 20 && ok < TOTAL; guard++) {
        if (killing) await killing;
        const res = await api('POST', `/v1/webhooks/${wh.id}/test`, {}).catch(() => null);
        if (!res || res.status !== 200) {
          await new Promise((r) => setTimeout(r, 50)); // the server is down or restarting
          continue;
        }
        ok++;
        if (kills.length > 0 && ok >= kills[0]! && !killing) {
          kills.shift();
          killing = kill().then(start).finally(() => { killing = null; });
        }
      }
    });
    await Promise.all(workers);
    if (killing) await killing;
    assert.ok(ok >= TOTAL);
    assert.deepEqual(kills, [], 'both kills happened');

    const committed: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 1000; page++) {
      const res = await api('GET', `/v1/events?type=webhook.test&limit=100${cursor ? `&starting_after=${cursor}` : ''}`);
      const body = await res.json() as { data: Array<{ id: string }>; has_more: boolean; next_cursor: string | null };
      committed.push(...body.data.map((e) => e.id));
      if (!body.has_more) break;
      cursor = body.next_cursor;
    }
    assert.ok(committed.length >= TOTAL, `${committed.length} events committed`);
    const missing = () => {
      const got = new Set(receiver.events().map((e) => e.id));
      return committed.filter((id) => !got.has(id));
    };
    await receiver.waitFor(() => missing().length === 0, 90_000).catch(() => undefined);
    assert.deepEqual(missing(), [], 'every committed event was delivered');
    assert.deepEqual(receiver.unverified, []);
  } finally {
    if (server && (server as ChildProcess).exitCode === null) await kill();
    await receiver.close();
    await store.drop();
  }
});
