// The `switchboard` command, run as a user runs it, against the same store a running
// server uses (SQLite WAL lets both work at once; on PostgreSQL, DATABASE_URL).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
before(async () => { t = await startTestServer(); });
after(() => t.close());

function cli(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const env: Record<string, string | undefined> = { ...process.env, SWITCHBOARD_DATA_DIR: t.store.dataDir };
  if (t.store.databaseUrl) env.DATABASE_URL = t.store.databaseUrl;
  else delete env.DATABASE_URL;
  const r = spawnSync(process.execPath, ['bin/switchboard.js', ...args], { env, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('switchboard CLI', () => {
  let created: any;

  test('accounts create --json prints the account, both keys and the sandbox number', () => {
    const r = cli('accounts', 'create', '--plan', 'growth', '--name', 'Acme', '--json');
    assert.equal(r.status, 0, r.stderr);
    created = JSON.parse(r.stdout);
    assert.match(created.account.id, /^acct_/);
    assert.equal(created.account.plan, 'growth');
    assert.equal(created.account.name, 'Acme');
    assert.ok('trial_ends_at' in created.account);
    assert.match(created.keys.sandbox, /^sb_test_/);
    assert.match(created.keys.live, /^sb_live_/);
    assert.equal(created.numbers.sandbox.length, 1);
    assert.match(created.numbers.sandbox[0], /^\+1\d{10}$/);
  });

  test('the running server accepts keys the CLI created', async () => {
    const res = await t.as(created.keys.sandbox).get('/v1/account');
    assert.equal(res.status, 200);
    assert.equal(res.body.name, 'Acme');
  });

  test('keys create, list, rotate and revoke while the server runs', async () => {
    const made = cli('keys', 'create', '--account', created.account.id, '--mode', 'live', '--scopes', 'calls:read,calls:write', '--json');
    assert.equal(made.status, 0, made.stderr);
    const key = JSON.parse(made.stdout);
    assert.match(key.secret, /^sb_live_/);
    assert.deepEqual(key.scopes, ['calls:read', 'calls:write']);

    const listed = JSON.parse(cli('keys', 'list', '--account', created.account.id, '--mode', 'live', '--json').stdout);
    assert.ok(listed.some((k: any) => k.id === key.id && k.secret === undefined));

    const rotated = JSON.parse(cli('keys', 'rotate', key.id, '--grace-seconds', '0', '--json').stdout);
    assert.match(rotated.key.secret, /^sb_live_/);
    assert.equal(rotated.previous_key.id, key.id);

    const revoked = cli('keys', 'revoke', rotated.key.id, '--json');
    assert.equal(revoked.status, 0, revoked.stderr);
    assert.equal(JSON.parse(revoked.stdout).status, 'revoked');
    // Another process changed the key: this server sees it once its key cache expires (1 s).
    await new Promise((r) => setTimeout(r, t.config.keyCacheTtlMs + 100));
    const res = await t.as(rotated.key.secret).get('/v1/keys');
    assert.equal(res.status, 401);
    assert.equal(res.body.code, 'api_key_revoked');
  });

  test('accounts update raises caps', () => {
    const r = cli('accounts', 'update', created.account.id, '--rate-limit', '5000', '--concurrent-calls', 'unlimited', '--json');
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout).limits, { requests_per_minute: 5000, concurrent_calls: null });
  });

  test('bad usage exits 2 with a message', () => {
    const r = cli('accounts', 'create', '--plan', 'gold');
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--plan must be one of trial, growth, scale, enterprise/);
    assert.equal(cli('frobnicate').status, 2);
  });
});

describe('switchboard serve', () => {
  test('first start on an empty store prints a trial account and keys; SIGTERM shuts down cleanly', async () => {
    const empty = await import('../helpers/database.ts').then((m) => m.createTestStore());
    let child: ReturnType<typeof spawn> | undefined;
    try {
      const env: Record<string, string | undefined> = { ...process.env, SWITCHBOARD_LOG_LEVEL: 'warn' };
      if (empty.databaseUrl) env.DATABASE_URL = empty.databaseUrl;
      else delete env.DATABASE_URL;
      const server = spawn(process.execPath, ['bin/switchboard.js', 'serve', '--port', '0', '--data-dir', empty.dataDir], { env });
      child = server;
      let out = '';
      server.stdout.on('data', (c) => { out += c; });
      // Generous: a cold start transpiles the sources, which takes tens of seconds on a busy machine.
      const started = Date.now();
      while (!/sandbox key\s+sb_test_/.test(out) && Date.now() - started < 90_000) await new Promise((r) => setTimeout(r, 50));
      assert.match(out, /account\s+acct_/);
      assert.match(out, /live key\s+sb_live_/);
      const url = /curl .* (http:\/\/127\.0\.0\.1:\d+)\/v1\/account/.exec(out)![1]!;
      const key = /sandbox key\s+(sb_test_\S+)/.exec(out)![1]!;
      const res = await fetch(`${url}/v1/account`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(res.status, 200);
      const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
      server.kill('SIGTERM');
      assert.equal(await exited, 0);
    } finally {
      // A failed assertion must not leave the server running (it would hold the suite open).
      if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await empty.drop();
    }
  });
});
