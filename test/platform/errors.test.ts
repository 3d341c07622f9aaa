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

function assertProblem(res: { status: number; headers: Headers; body: any }, status: number, code: string) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
  assert.equal(res.body.code, code);
  assert.equal(res.body.status, status);
  assert.equal(res.body.type, `https://switchboard.dev/problems/${code}`);
  assert.ok(res.body.title);
  assert.ok(res.body.detail);
  assert.match(res.body.request_id, /^req_/);
  assert.ok(res.headers.get('x-switchboard-ratelimit-remaining'), 'rate-limit headers on errors too');
  assert.ok(res.headers.get('x-switchboard-ratelimit-reset'));
  assert.equal(JSON.stringify(res.body).includes('    at '), false, 'no stack trace');
}

describe('problems', () => {
  test('validation errors name every bad field', async () => {
    const res = await t.as(acct.keys.sandbox).post('/v1/keys', { name: '', scopes: 'all', colour: 'red' });
    assertProblem(res, 400, 'validation_failed');
    const fields = res.body.errors.map((e: any) => e.field).sort();
    assert.deepEqual(fields, ['colour', 'name', 'scopes']);
    for (const e of res.body.errors) assert.ok(e.message && e.code);
  });

  test('malformed JSON is a 400', async () => {
    assertProblem(await t.request('POST', '/v1/keys', { key: acct.keys.sandbox, raw: '{"name": ' }), 400, 'malformed_json');
  });

  test('a wrong content type is a 415', async () => {
    const res = await t.request('POST', '/v1/keys', { key: acct.keys.sandbox, raw: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    assertProblem(res, 415, 'unsupported_media_type');
  });

  test('a body over 1 MiB is a 413', async () => {
    const res = await t.as(acct.keys.sandbox).post('/v1/keys', { name: 'x'.repeat(1024 * 1024 + 10) });
    assertProblem(res, 413, 'payload_too_large');
  });

  test('an invalid query parameter is a 400 naming it', async () => {
    const res = await t.as(acct.keys.sandbox).get('/v1/keys?limit=1000');
    assertProblem(res, 400, 'validation_failed');
    assert.equal(res.body.errors[0].field, 'limit');
  });

  test('unknown routes and wrong methods are problems', async () => {
    assertProblem(await t.as(acct.keys.sandbox).get('/v1/does-not-exist'), 404, 'route_not_found');
    const wrong = await t.as(acct.keys.sandbox).patch('/v1/account', {});
    assertProblem(wrong, 405, 'method_not_allowed');
    assert.equal(wrong.headers.get('allow'), 'GET');
    assertProblem(await t.request('GET', '/nope'), 404, 'route_not_found');
  });

  test('health and readiness', async () => {
    const health = await t.request('GET', '/healthz');
    assert.equal(health.status, 200);
    const ready = await t.request('GET', '/readyz');
    assert.equal(ready.status, 200);
    assert.equal(ready.body.database, t.store.engine);
  });
});
