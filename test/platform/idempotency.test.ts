import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer, type CreatedAccount } from '../helpers/server.ts';

let t: TestServer;
let acct: CreatedAccount;

before(async () => {
  t = await startTestServer();
  acct = await t.createAccount('scale');
});
after(() => t.close());

async function keyCount(key: string): Promise<number> {
  return (await t.as(key).get('/v1/keys?limit=100')).body.data.length;
}

describe('Idempotency-Key', () => {
  test('same key and body replays the stored status and body', async () => {
    const api = t.as(acct.keys.sandbox);
    const first = await api.post('/v1/keys', { name: 'once' }, { idempotencyKey: 'create-once-1' });
    assert.equal(first.status, 200);
    assert.equal(first.headers.get('idempotent-replayed'), null);
    const second = await api.post('/v1/keys', { name: 'once' }, { idempotencyKey: 'create-once-1' });
    assert.equal(second.status, 200);
    assert.equal(second.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(second.body, first.body);
  });

  test('same key with another body is 422 idempotency_key_reused', async () => {
    const api = t.as(acct.keys.sandbox);
    await api.post('/v1/keys', { name: 'a' }, { idempotencyKey: 'reuse-1' });
    const res = await api.post('/v1/keys', { name: 'b' }, { idempotencyKey: 'reuse-1' });
    assert.equal(res.status, 422);
    assert.equal(res.body.code, 'idempotency_key_reused');
  });

  test('keys are scoped to account, mode, method and path', async () => {
    const before = await keyCount(acct.keys.live);
    const sandbox = await t.as(acct.keys.sandbox).post('/v1/keys', { name: 'scoped' }, { idempotencyKey: 'scope-1' });
    const live = await t.as(acct.keys.live).post('/v1/keys', { name: 'scoped' }, { idempotencyKey: 'scope-1' });
    assert.equal(live.status, 200);
    assert.equal(live.headers.get('idempotent-replayed'), null);
    assert.notEqual(live.body.id, sandbox.body.id);
    assert.equal(await keyCount(acct.keys.live), before + 1);
  });

  test('a malformed key is a 400 problem', async () => {
    const res = await t.as(acct.keys.sandbox).post('/v1/keys', {}, { idempotencyKey: 'has spaces' });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'invalid_idempotency_key');
    const long = await t.as(acct.keys.sandbox).post('/v1/keys', {}, { idempotencyKey: 'x'.repeat(256) });
    assert.equal(long.status, 400);
  });

  test('a request that failed validation does not consume the key', async () => {
    const api = t.as(acct.keys.sandbox);
    const bad = await api.post('/v1/keys', { scopes: ['nope'] }, { idempotencyKey: 'fix-then-retry' });
    assert.equal(bad.status, 400);
    const good = await api.post('/v1/keys', { scopes: ['calls:read'] }, { idempotencyKey: 'fix-then-retry' });
    assert.equal(good.status, 200);
  });

  test('50 identical concurrent requests create exactly one resource', async () => {
    const fresh = await t.createAccount('scale');
    const api = t.as(fresh.keys.sandbox);
    const before = await keyCount(fresh.keys.sandbox);
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => api.post('/v1/keys', { name: 'burst' }, { idempotencyKey: 'burst-50' })),
    );
    const ok = responses.filter((r) => r.status === 200);
    const busy = responses.filter((r) => r.status === 409);
    assert.equal(ok.length + busy.length, 50, `statuses: ${responses.map((r) => r.status).join(',')}`);
    assert.ok(ok.length >= 1);
    assert.equal(new Set(ok.map((r) => r.body.id)).size, 1, 'every success names the same key');
    for (const r of busy) assert.equal(r.body.code, 'idempotency_key_in_progress');
    assert.equal(await keyCount(fresh.keys.sandbox), before + 1);
    // Once the first finished, a retry replays it.
    const retry = await api.post('/v1/keys', { name: 'burst' }, { idempotencyKey: 'burst-50' });
    assert.equal(retry.status, 200);
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    assert.equal(retry.body.id, ok[0]!.body.id);
  });

  test('a duplicate whose key check ran before the first one committed answers 409 and creates nothing', async () => {
    // The webhook_url's host is looked up before a call's first statement, so each duplicate
    // checks its key while the first is still resolving, and writes only after the first
    // committed: on SQLite its claim-with-answer then finds the key taken and rolls back.
    const fresh = await t.createAccount('scale');
    const api = t.as(fresh.keys.sandbox);
    const body = { from: fresh.numbers.sandbox[0], to: '+14155550100', record: false, webhook_url: 'http://localhost:9/dup' };
    const responses = await Promise.all(Array.from({ length: 5 }, () => api.post('/v1/calls', body, { idempotencyKey: 'dup-after-check' })));
    const ok = responses.filter((r) => r.status === 200);
    const busy = responses.filter((r) => r.status === 409);
    assert.equal(ok.length + busy.length, 5, `statuses: ${responses.map((r) => r.status).join(',')}`);
    assert.equal(new Set(ok.map((r) => r.body.id)).size, 1, 'every success names the same call');
    for (const r of busy) {
      assert.equal(r.body.code, 'idempotency_key_in_progress');
      assert.equal(r.headers.get('retry-after'), '1');
    }
    const calls = (await api.get('/v1/calls?limit=100')).body.data as Array<{ id: string }>;
    assert.equal(calls.length, 1, 'one call, whatever the duplicates did before they rolled back');
    const retry = await api.post('/v1/calls', body, { idempotencyKey: 'dup-after-check' });
    assert.equal(retry.status, 200);
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    assert.equal(retry.body.id, calls[0]!.id);
  });

  test('errors are replayed too (a 4xx outcome is the outcome)', async () => {
    const api = t.as(acct.keys.sandbox);
    const missing = await api.post('/v1/keys/key_01jd8x0v6kf5b9w3t2q1r0p9n8/revoke', undefined, { idempotencyKey: 'err-1' });
    assert.equal(missing.status, 404);
    const replay = await api.post('/v1/keys/key_01jd8x0v6kf5b9w3t2q1r0p9n8/revoke', undefined, { idempotencyKey: 'err-1' });
    assert.equal(replay.status, 404);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.match(replay.headers.get('content-type') ?? '', /problem\+json/);
  });
});

describe('Idempotency-Key follows the route, not the text (issue 11.10)', () => {
  test('every spelling of one endpoint shares the key: one key created, the rest replayed', async () => {
    const fresh = await t.createAccount('scale');
    const before = await keyCount(fresh.keys.sandbox);
    const spellings = ['/v1/keys', '/v1/keys/', '/%761/keys', '/v1/%6beys'];
    const ids = new Set<string>();
    for (const [i, path] of spellings.entries()) {
      const res = await t.request('POST', path, { key: fresh.keys.sandbox, body: { name: 'one' }, idempotencyKey: 'spelled-4-ways' });
      assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
      assert.equal(res.headers.get('idempotent-replayed'), i === 0 ? null : 'true', path);
      ids.add(res.body.id);
    }
    assert.equal(ids.size, 1);
    assert.equal(await keyCount(fresh.keys.sandbox), before + 1);
  });

  test('the same key on two resources of one route is two requests', async () => {
    const api = t.as(acct.keys.sandbox);
    const a = (await api.post('/v1/keys', { name: 'a', scopes: ['calls:read'] })).body.id;
    const b = (await api.post('/v1/keys', { name: 'b', scopes: ['calls:read'] })).body.id;
    const first = await api.post(`/v1/keys/${a}/revoke`, undefined, { idempotencyKey: 'per-resource' });
    const second = await api.post(`/v1/keys/${b}/revoke`, undefined, { idempotencyKey: 'per-resource' });
    assert.equal(first.body.id, a);
    assert.equal(second.body.id, b);
    assert.equal(second.headers.get('idempotent-replayed'), null);
  });
});

describe('a write that keeps its key in its service transaction (POST /v1/messages, POST /v1/calls; issue 29)', () => {
  const send = (key: string, path: string, body: unknown, idempotencyKey: string) => fetch(t.url + path, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
    body: JSON.stringify(body),
  });

  test('a replay answers the same status, content type and bytes', async () => {
    const body = { from: acct.numbers.sandbox[0], to: '+14155550100', body: 'kept once', metadata: { order: '7' } };
    const first = await send(acct.keys.sandbox, '/v1/messages', body, 'kept-message-1');
    const second = await send(acct.keys.sandbox, '/v1/messages', body, 'kept-message-1');
    assert.equal(first.status, 200);
    assert.equal(second.status, 200);
    assert.equal(first.headers.get('idempotent-replayed'), null);
    assert.equal(second.headers.get('idempotent-replayed'), 'true');
    assert.equal(second.headers.get('content-type'), first.headers.get('content-type'));
    assert.equal(await second.text(), await first.text());
  });

  test('50 identical concurrent requests create one message; the others answer 409 and their retry replays it', async () => {
    const fresh = await t.createAccount('scale');
    const api = t.as(fresh.keys.sandbox);
    const body = { from: fresh.numbers.sandbox[0], to: '+14155550100', body: 'burst' };
    const responses = await Promise.all(Array.from({ length: 50 }, () => api.post('/v1/messages', body, { idempotencyKey: 'kept-burst' })));
    const ok = responses.filter((r) => r.status === 200);
    const busy = responses.filter((r) => r.status === 409);
    assert.equal(ok.length + busy.length, 50, `statuses: ${responses.map((r) => r.status).join(',')}`);
    assert.equal(new Set(ok.map((r) => (r.body as { id: string }).id)).size, 1, 'every success names the same message');
    const messages = (await api.get('/v1/messages?limit=100')).body as { data: Array<{ id: string }> };
    assert.equal(messages.data.length, 1);
    const retry = await api.post('/v1/messages', body, { idempotencyKey: 'kept-burst' });
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    assert.equal((retry.body as { id: string }).id, messages.data[0]!.id);
  });

  test('a refusal is the outcome too: replayed, nothing written; a request that failed validation leaves its key', async () => {
    const api = t.as(acct.keys.sandbox);
    const notOurs = { from: '+12125550199', to: '+14155550100', record: false };
    const refused = await api.post('/v1/calls', notOurs, { idempotencyKey: 'kept-refusal' });
    assert.equal(refused.status, 422);
    assert.equal((refused.body as { code: string }).code, 'from_number_not_owned');
    const replay = await api.post('/v1/calls', notOurs, { idempotencyKey: 'kept-refusal' });
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(replay.body, refused.body);

    const invalid = await api.post('/v1/calls', { from: acct.numbers.sandbox[0], to: 'not a number' }, { idempotencyKey: 'kept-fix-then-retry' });
    assert.equal(invalid.status, 400);
    const fixed = await api.post('/v1/calls', { from: acct.numbers.sandbox[0], to: '+14155550100', record: false }, { idempotencyKey: 'kept-fix-then-retry' });
    assert.equal(fixed.status, 200);
    assert.equal(fixed.headers.get('idempotent-replayed'), null);
  });
});
