// A sandbox clock advance keeps its Idempotency-Key itself (its jobs run outside any
// request-wide transaction): the key is recorded with the clock's move. Killed at the worst
// moment (moved and drained, answer not yet stored: the crash-before-response failpoint), the
// retry after a restart must not move the clock a second time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { createTestStore } from '../helpers/database.ts';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

test('an advance killed before its answer was stored moves the clock once when retried with its key', { timeout: 180_000 }, async () => {
  const store = await createTestStore();
  const env = { ...process.env, DATABASE_URL: store.databaseUrl ?? '', SWITCHBOARD_LOG_LEVEL: 'error', SWITCHBOARD_TEST_FAILPOINTS: 'true' };
  const created = spawnSync(process.execPath, ['bin/switchboard.js', 'accounts', 'create', '--plan', 'scale', '--json', '--data-dir', store.dataDir], { env, encoding: 'utf8' });
  assert.equal(created.status, 0, created.stderr);
  const key = JSON.parse(created.stdout).keys.sandbox as string;
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  let server = null as ChildProcess | null;
  const start = async () => {
    server = spawn(process.execPath, ['bin/switchboard.js', 'serve', '--port', String(port), '--data-dir', store.dataDir], { env, stdio: ['ignore', 'ignore', 'inherit'] });
    for (let i = 0; i < 1200; i++) {
      if (await fetch(`${base}/readyz`).then((r) => r.ok, () => false)) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('the server did not start');
  };
  const advance = (headers: Record<string, string> = {}) => fetch(`${base}/v1/sandbox/clock/advance`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': 'crash-1', ...headers },
    body: JSON.stringify({ seconds: 600 }),
  });
  const offset = async () => (await (await fetch(`${base}/v1/sandbox/clock`, { headers: { authorization: `Bearer ${key}` } })).json() as any).offset_seconds;

  try {
    await start();
    const exited = new Promise((resolve) => server!.once('exit', resolve));
    await assert.rejects(advance({ 'x-switchboard-failpoint': 'crash-before-response' }), 'the server died before answering');
    await exited;

    await start();
    assert.equal(await offset(), 600, 'the move made before the crash stands');
    const retry = await advance();
    assert.equal(retry.status, 200);
    assert.equal(((await retry.json()) as any).offset_seconds, 600, 'the retry answers the one move');
    assert.equal(await offset(), 600, 'the retry did not move the clock again');
    const replay = await advance();
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  } finally {
    server?.kill('SIGKILL');
    await store.drop();
  }
});
