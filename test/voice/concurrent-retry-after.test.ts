// The concurrent-call 429 says when to retry, as the OpenAPI document declares (issue 22,
// defect 3): a documented polling interval, since when a call ends is not known ahead.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { MAGIC } from './voice-helpers.ts';

let t: TestServer;

before(async () => {
  t = await startTestServer();
});
after(() => t.close());

test('the 6th call of a trial account is 429 concurrent_call_limit with Retry-After: 5, with or without an Idempotency-Key', async () => {
  const acct = await t.createAccount('trial');
  const api = t.as(acct.keys.sandbox);
  const from = acct.numbers.sandbox[0]!;
  for (let i = 0; i < 5; i++) assert.equal((await api.post('/v1/calls', { from, to: MAGIC.staysUp, record: false })).status, 200);

  for (const idempotencyKey of [undefined, 'full-1']) {
    const refused = await api.post('/v1/calls', { from, to: MAGIC.staysUp, record: false }, idempotencyKey ? { idempotencyKey } : {});
    assert.equal(refused.status, 429, JSON.stringify(refused.body));
    assert.equal(refused.body.code, 'concurrent_call_limit');
    assert.equal(refused.headers.get('retry-after'), '5');
    // The rate-limit headers are the request budget's, unchanged by the cap.
    assert.match(refused.headers.get('x-switchboard-ratelimit-remaining') ?? '', /^\d+$/);
  }

  const document = (await t.request('GET', '/v1/openapi.json')).body;
  const response = document.paths['/v1/calls'].post.responses['429'];
  assert.ok(response.headers['Retry-After'], 'the document declares Retry-After on this 429');
  assert.match(document.components.headers.RetryAfter.description, /concurrent_call_limit/);
});
