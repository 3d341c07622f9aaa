// No secret rests in clear (issue 10.7, issue 10.8): API keys and webhook signing secrets created
// or rotated with an Idempotency-Key are replayable, yet neither the database (every table:
// idempotency responses, events, deliveries and dead letters) nor any file in the data dir
// holds one in clear. The SQLite scan reads the real files (database, WAL); the PostgreSQL
// scan reads every row of every table. Logs are scanned by logs.test.ts.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
before(async () => {
  t = await startTestServer();
});
after(async () => {
  await t.close();
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** Every place a secret could rest, as one list of (where, bytes). */
async function everythingAtRest(): Promise<{ where: string; text: string }[]> {
  const out = filesUnder(t.store.dataDir).map((path) => ({ where: path, text: readFileSync(path).toString('latin1') }));
  if (t.store.databaseUrl) {
    const client = new pg.Client({ connectionString: t.store.databaseUrl });
    await client.connect();
    try {
      const tables = await client.query<{ tablename: string }>("SELECT tablename FROM pg_tables WHERE schemaname = 'public'");
      assert.ok(tables.rows.length > 10, 'the scan sees the schema');
      for (const { tablename } of tables.rows) {
        const rows = await client.query(`SELECT row_to_json(x)::text AS j FROM "${tablename}" x`);
        out.push({ where: `table ${tablename}`, text: rows.rows.map((r) => r.j).join('\n') });
      }
    } finally {
      await client.end();
    }
  }
  return out;
}

test('keys and signing secrets made with Idempotency-Key replay, and rest nowhere in clear', async () => {
  const acct = await t.createAccount('scale');
  const api = t.as(acct.keys.sandbox);
  const secrets: string[] = [acct.keys.sandbox, acct.keys.live];
  const once = async (path: string, body: unknown, key: string) => {
    const first = await api.post(path, body, { idempotencyKey: key });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const replay = await api.post(path, body, { idempotencyKey: key });
    assert.equal(replay.status, 200);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(replay.body, first.body, 'the replay answers the same secret');
    return first.body;
  };

  const created = await once('/v1/keys', { name: 'ci' }, 'key-create-1');
  secrets.push(created.secret);
  const rotated = await once(`/v1/keys/${created.id}/rotate`, { expires_in_seconds: 60 }, 'key-rotate-1');
  secrets.push(rotated.key.secret);
  const hook = await once('/v1/webhooks', { url: 'http://127.0.0.1:9/hooks', events: ['*'] }, 'hook-create-1');
  secrets.push(hook.secret);
  const hookRotated = await once(`/v1/webhooks/${hook.id}/rotate_secret`, { expires_in_seconds: 60 }, 'hook-rotate-1');
  secrets.push(hookRotated.secret);
  const defaults = await once('/v1/webhooks/default_secret/rotate', { expires_in_seconds: 60 }, 'default-rotate-1');
  secrets.push(defaults.secret);
  assert.equal(new Set(secrets).size, secrets.length);

  // Events, deliveries and a dead letter exist too (the receiver at port 9 never answers).
  assert.equal((await api.post(`/v1/webhooks/${hook.id}/test`, {})).status, 200);
  for (let i = 0; i < 200 && (await api.get('/v1/webhooks/dead_letters')).body.data.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok((await api.get('/v1/webhooks/dead_letters')).body.data.length > 0, 'a dead letter was written');

  const places = await everythingAtRest();
  // The scan reads the real store: the SQLite file and its WAL, or every PostgreSQL table;
  // and it sees what rests there (ids of what was just made), so an empty scan cannot pass.
  const wheres = places.map((p) => p.where);
  if (t.store.engine === 'sqlite') {
    assert.ok(wheres.some((w) => w.endsWith('switchboard.db')), `the SQLite file was scanned: ${wheres.join(', ')}`);
    assert.ok(wheres.some((w) => w.endsWith('switchboard.db-wal')), 'the SQLite WAL was scanned');
  } else {
    for (const table of ['idempotency_keys', 'api_keys', 'events', 'webhook_endpoints']) assert.ok(wheres.includes(`table ${table}`), `table ${table} was scanned`);
  }
  const everything = places.map((p) => p.text).join('\n');
  for (const id of [created.id, hook.id]) assert.ok(everything.includes(id), `the scan sees ${id} at rest`);
  for (const secret of secrets) {
    // The secret and its random part alone (after sb_test_, sb_live_, whsec_).
    const needles = [secret, secret.replace(/^(sb_(test|live)_|whsec_)/, '')];
    for (const { where, text } of places) {
      for (const needle of needles) assert.ok(!text.includes(needle), `${where} holds ${secret.slice(0, 10)}... in clear`);
    }
  }
});
