import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { MemoryRateLimiter, type RateLimiter } from '../../src/platform/rate-limiter.ts';

let t: TestServer;
before(async () => { t = await startTestServer(); });
after(() => t.close());

describe('rate limits', () => {
  // issue 10.16: at Remaining 0, Retry-After says when one request is allowed again, Reset when the bucket is full.
  test('a trial account gets 60 requests, then 429 rate_limited with Retry-After', async () => {
    const acct = await t.createAccount('trial');
    const api = t.as(acct.keys.sandbox);
    // The bucket refills at one request per second, so allow for the time the loop took.
    const started = Date.now();
    const remaining: number[] = [];
    let limited;
    for (let i = 0; i < 100 && !limited; i++) {
      const res = await api.get('/v1/account');
      if (res.status === 429) limited = res;
      else remaining.push(Number(res.headers.get('x-switchboard-ratelimit-remaining')));
    }
    const refilled = Math.ceil((Date.now() - started) / 1000);
    assert.equal(remaining[0], 59);
    assert.ok(remaining.length >= 60 && remaining.length <= 60 + refilled, `${remaining.length} allowed in ${refilled} s`);
    assert.ok(limited, 'a request was refused');
    assert.equal(limited.body.code, 'rate_limited');
    assert.match(limited.headers.get('content-type') ?? '', /problem\+json/);
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
    assert.equal(limited.headers.get('x-switchboard-ratelimit-remaining'), '0');
    assert.ok(Number(limited.headers.get('x-switchboard-ratelimit-reset')) >= 59, 'a full minute to refill');
    assert.equal(limited.headers.get('ratelimit-policy'), '60;w=60');

    // Live is a separate bucket.
    assert.equal((await t.as(acct.keys.live).get('/v1/account')).status, 200);
  });

  test('plan limits and per-account overrides', async () => {
    const growth = await t.createAccount('growth');
    const res = await t.as(growth.keys.sandbox).get('/v1/account');
    assert.equal(res.headers.get('ratelimit-policy'), '600;w=60');
    assert.equal(res.headers.get('x-switchboard-ratelimit-remaining'), '599');
    await t.server.built.services.accounts.update(growth.account.id, { rateLimitPerMinute: 1200, concurrentCalls: -1 });
    const raised = await t.as(growth.keys.sandbox).get('/v1/account');
    assert.equal(raised.headers.get('ratelimit-policy'), '1200;w=60');
    assert.deepEqual(raised.body.limits, { requests_per_minute: 1200, concurrent_calls: null });
    const enterprise = await t.createAccount('enterprise');
    assert.deepEqual((await t.as(enterprise.keys.sandbox).get('/v1/account')).body.limits, { requests_per_minute: 60000, concurrent_calls: null });
  });

  test('requests without a valid key are limited per client IP', async () => {
    const fresh = await startTestServer();
    try {
      let last;
      for (let i = 0; i < 100 && last?.status !== 429; i++) last = await fresh.request('GET', '/v1/account');
      assert.equal(last!.status, 429);
      assert.equal(last!.body.code, 'rate_limited');
      assert.ok(last!.headers.get('retry-after'));
    } finally {
      await fresh.close();
    }
  });
});

describe('trial', () => {
  test('after trial_ends_at live requests get 403 trial_expired; sandbox keeps working', async () => {
    const acct = await t.createAccount('trial');
    const created = Date.parse(acct.account.trial_ends_at!) - 14 * 86_400_000;
    assert.ok(Math.abs(created - Date.now()) < 60_000, 'trial lasts 14 days');
    await t.server.built.services.accounts.update(acct.account.id, { trialEndsAt: new Date(Date.now() - 1000).toISOString() });
    const live = await t.as(acct.keys.live).get('/v1/account');
    assert.equal(live.status, 403);
    assert.equal(live.body.code, 'trial_expired');
    const sandbox = await t.as(acct.keys.sandbox).get('/v1/account');
    assert.equal(sandbox.status, 200);
    assert.equal(sandbox.body.trial_expired, true);
  });
});

describe('a rate limiter that answers asynchronously, as the shared PostgreSQL buckets do', () => {
  let shared: TestServer;
  before(async () => {
    const memory = new MemoryRateLimiter();
    const later = <T>(value: T) => new Promise<T>((resolve) => setImmediate(() => resolve(value)));
    const limiter: RateLimiter = {
      consume: (key, policy, nowMs) => later(memory.consume(key, policy, nowMs)),
      peek: (key, policy, nowMs) => later(memory.peek(key, policy, nowMs)),
    };
    shared = await startTestServer({}, { limiter });
  });
  after(() => shared.close());

  test('every path still answers with its headers, and the limit still holds', async () => {
    const acct = await shared.createAccount('trial');
    const ok = await shared.as(acct.keys.sandbox).get('/v1/account');
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get('x-switchboard-ratelimit-remaining'), '59');
    assert.equal(ok.body.usage.requests_remaining, 59);

    const unknown = await shared.as(`sb_test_${'x'.repeat(43)}`).get('/v1/account');
    assert.equal(unknown.status, 401);
    assert.equal(unknown.headers.get('www-authenticate'), 'Bearer realm="switchboard"');
    assert.ok(unknown.headers.get('x-switchboard-ratelimit-remaining'));

    const health = await shared.request('GET', '/healthz');
    assert.equal(health.status, 200);
    assert.ok(health.headers.get('ratelimit-policy'));

    const statuses: number[] = [];
    for (let i = 0; i < 70 && !statuses.includes(429); i++) statuses.push((await shared.as(acct.keys.sandbox).get('/v1/account')).status);
    assert.equal(statuses.at(-1), 429);
    assert.ok(statuses.filter((s) => s === 200).length >= 59);
  });
});
