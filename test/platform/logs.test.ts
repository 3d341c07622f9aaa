// issue 10.8: structured logs never carry a secret, even at the most verbose level: not an API key
// from the Authorization header, not a key or signing secret from a response.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { createTestStore } from '../helpers/database.ts';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** The body of a 2xx answer; any other fails the test with the answer it got, which says why. */
async function created200(answer: Promise<Response>): Promise<unknown> {
  const res = await answer;
  const text = await res.text();
  assert.ok(res.ok, `${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

test('trace-level logs of real requests contain no API key or signing secret', async () => {
  const store = await createTestStore();
  const env: Record<string, string | undefined> = { ...process.env, SWITCHBOARD_LOG_LEVEL: 'trace', SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE: 'true' };
  if (store.databaseUrl) env.DATABASE_URL = store.databaseUrl;
  else delete env.DATABASE_URL;
  // An existing account, so the first-run banner (which prints keys on purpose) stays quiet.
  const created = JSON.parse(spawnSync(process.execPath, ['bin/switchboard.js', 'accounts', 'create', '--plan', 'growth', '--json', '--data-dir', store.dataDir], { env, encoding: 'utf8' }).stdout);
  const port = await freePort();
  const child = spawn(process.execPath, ['bin/switchboard.js', 'serve', '--port', String(port), '--data-dir', store.dataDir], { env });
  let logs = '';
  child.stdout.on('data', (c) => { logs += c; });
  child.stderr.on('data', (c) => { logs += c; });
  try {
    const url = `http://127.0.0.1:${port}`;
    // A busy machine can take a while to compile the sources through tsx: wait up to 3 minutes.
    for (let i = 0; i < 1800 && !(await fetch(`${url}/readyz`).then((r) => r.ok, () => false)); i++) {
      assert.equal(child.exitCode, null, `the server exited before it was ready:\n${logs}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const auth = { authorization: `Bearer ${created.keys.sandbox}`, 'content-type': 'application/json' };
    const key = await created200(fetch(`${url}/v1/keys`, { method: 'POST', headers: { ...auth, 'idempotency-key': 'log-test' }, body: '{}' })) as { id: string; secret: string };
    const hook = await created200(fetch(`${url}/v1/webhooks`, { method: 'POST', headers: auth, body: JSON.stringify({ url: 'http://127.0.0.1:9/hooks', events: ['*'] }) })) as { id: string; secret: string };
    // Rotations show new secrets once too; a test event is signed and sent (and fails).
    const rotated = await created200(fetch(`${url}/v1/keys/${key.id}/rotate`, { method: 'POST', headers: { ...auth, 'idempotency-key': 'log-rotate' }, body: '{}' })) as { key: { secret: string } };
    const hookRotated = await created200(fetch(`${url}/v1/webhooks/${hook.id}/rotate_secret`, { method: 'POST', headers: auth, body: '{}' })) as { id: string; secret: string };
    const defaults = await created200(fetch(`${url}/v1/webhooks/default_secret/rotate`, { method: 'POST', headers: auth, body: '{}' })) as { id: string; secret: string };
    await fetch(`${url}/v1/webhooks/${hook.id}/test`, { method: 'POST', headers: auth, body: '{}' });
    await fetch(`${url}/v1/account`, { headers: { authorization: `Bearer ${key.secret}` } });
    await fetch(`${url}/v1/account`, { headers: { authorization: 'Bearer sb_test_notarealkeyatall' } });
    assert.match(key.secret, /^sb_test_/);
    assert.match(hook.secret, /^whsec_/);
    assert.match(rotated.key.secret, /^sb_test_/);
    assert.match(hookRotated.secret, /^whsec_/);
    assert.match(defaults.secret, /^whsec_/);
    await new Promise((r) => setTimeout(r, 200));
    assert.ok(logs.includes('"level":10') || logs.includes('incoming request'), 'the server did log the requests');
    assert.match(logs, /"reqId":"req_[0-9a-z]{26}".*"msg":"incoming request"/, 'request lines carry their request id');
    for (const secret of [created.keys.sandbox, created.keys.live, key.secret, hook.secret, rotated.key.secret, hookRotated.secret, defaults.secret, 'sb_test_notarealkeyatall']) {
      assert.equal(logs.includes(secret), false, `a secret (${secret.slice(0, 10)}...) appeared in the logs`);
    }
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    await store.drop();
  }
});
