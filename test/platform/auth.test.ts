import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer, type CreatedAccount } from '../helpers/server.ts';

let t: TestServer;
let acct: CreatedAccount;

before(async () => {
  t = await startTestServer();
  acct = await t.createAccount('growth');
});
after(() => t.close());

function assertRateHeaders(headers: Headers) {
  assert.match(headers.get('x-switchboard-ratelimit-remaining') ?? '', /^\d+$/);
  assert.match(headers.get('x-switchboard-ratelimit-reset') ?? '', /^\d+$/);
  assert.ok(headers.get('ratelimit'));
  assert.ok(headers.get('ratelimit-policy'));
  assert.match(headers.get('x-request-id') ?? '', /^req_/);
}

describe('authentication', () => {
  test('a sandbox key reads its account with plan, limits and usage', async () => {
    const res = await t.as(acct.keys.sandbox).get('/v1/account');
    assert.equal(res.status, 200);
    assertRateHeaders(res.headers);
    assert.equal(res.body.id, acct.account.id);
    assert.equal(res.body.plan, 'growth');
    assert.equal(res.body.mode, 'sandbox');
    assert.deepEqual(res.body.limits, { requests_per_minute: 600, concurrent_calls: 50 });
    assert.equal(res.body.usage.requests_remaining, Number(res.headers.get('x-switchboard-ratelimit-remaining')));
  });

  test('keys have the documented shape', () => {
    assert.match(acct.keys.sandbox, /^sb_test_[0-9A-Za-z]{43}$/);
    assert.match(acct.keys.live, /^sb_live_[0-9A-Za-z]{43}$/);
    assert.match(acct.account.id, /^acct_/);
    assert.match(acct.numbers.sandbox[0]!, /^\+1\d{10}$/);
  });

  for (const [name, header, code] of [
    ['missing', undefined, 'missing_api_key'],
    ['malformed', 'Bearer nope', 'invalid_api_key'],
    ['not bearer', `Basic ${'x'.repeat(10)}`, 'invalid_api_key'],
    ['unknown', `Bearer sb_test_${'A'.repeat(43)}`, 'invalid_api_key'],
  ] as const) {
    test(`${name} key: 401 problem with WWW-Authenticate`, async () => {
      const res = await t.request('GET', '/v1/account', { headers: header ? { authorization: header } : {} });
      assert.equal(res.status, 401);
      assertRateHeaders(res.headers);
      assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer/);
      assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
      assert.equal(res.body.code, code);
      assert.equal(res.body.status, 401);
      assert.equal(res.body.type, `https://switchboard.dev/problems/${code}`);
      assert.equal(res.body.request_id, res.headers.get('x-request-id'));
      assert.ok(res.body.title && res.body.detail);
    });
  }

  test('GET /v1/openapi.json needs no key', async () => {
    const res = await t.request('GET', '/v1/openapi.json');
    assert.equal(res.status, 200);
    assertRateHeaders(res.headers);
    assert.equal(res.body.openapi, '3.1.0');
  });

  test('unknown route is a 404 problem, wrong method a 405 with Allow', async () => {
    const notFound = await t.as(acct.keys.sandbox).get('/v1/nothing-here');
    assert.equal(notFound.status, 404);
    assertRateHeaders(notFound.headers);
    assert.equal(notFound.body.code, 'route_not_found');
    const wrong = await t.as(acct.keys.sandbox).delete('/v1/account');
    assert.equal(wrong.status, 405);
    assert.equal(wrong.headers.get('allow'), 'GET');
    assert.equal(wrong.body.code, 'method_not_allowed');
  });
});
