// The Node SDK against a real Switchboard server: webhooks verified by the SDK's helper,
// auto-pagination, every error class, retries with one Idempotency-Key, and timeouts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Switchboard, verifyWebhook, SDK_VERSION, APIError, APIConnectionError, APITimeoutError, AuthenticationError,
  BadRequestError, ConflictError, InternalServerError, NotFoundError, PermissionDeniedError, RateLimitError,
  UnprocessableEntityError, WebhookVerificationError,
} from '../src/index.js';
import { closedPortUrl, startReceiver, startRecordingProxy, startSilentServer, startSwitchboard } from './kit.mjs';

let kit;
let client;

before(async () => {
  kit = await startSwitchboard();
  client = new Switchboard({ apiKey: kit.sandbox_key, baseUrl: kit.url });
});
after(async () => kit?.close());

describe('webhooks', () => {
  test('a call sends signed call.* webhooks that verifyWebhook accepts, and tampering is refused', async () => {
    const receiver = await startReceiver();
    try {
      const endpoint = await client.createWebhook({ url: receiver.url, events: ['call.*'] });
      assert.match(endpoint.secret, /^whsec_/);
      const call = await client.createCall({ from: kit.sandbox_number, to: '+14155550100' });
      assert.equal(call.status, 'queued');
      assert.match(call.id, /^call_/);

      const delivery = await receiver.waitFor((d) => {
        const event = JSON.parse(d.body.toString('utf8'));
        return event.type === 'call.completed' && event.data.object.id === call.id;
      });
      const event = verifyWebhook(delivery.body, delivery.headers, endpoint.secret);
      assert.equal(event.type, 'call.completed');
      assert.equal(event.data.object.status, 'completed');
      assert.equal(event.id, delivery.headers['webhook-id']);

      const tampered = Buffer.from(delivery.body.toString('utf8').replace('"completed"', '"failed"'));
      assert.throws(() => verifyWebhook(tampered, delivery.headers, endpoint.secret), WebhookVerificationError);
      assert.throws(() => verifyWebhook(delivery.body, delivery.headers, 'whsec_' + Buffer.from('another secret').toString('base64')), WebhookVerificationError);
      const later = (Number(delivery.headers['webhook-timestamp']) + 301) * 1000;
      assert.throws(() => verifyWebhook(delivery.body, delivery.headers, endpoint.secret, { now: later }), /tolerance/);
      assert.doesNotThrow(() => verifyWebhook(delivery.body, delivery.headers, endpoint.secret, { now: later, toleranceSeconds: 600 }));
      await client.deleteWebhook(endpoint.id);
    } finally {
      await receiver.close();
    }
  });
});

describe('pagination', () => {
  test('auto-pagination walks 250 messages across pages of 100, newest first, each once', async () => {
    const to = '+14155550142';
    const sent = [];
    for (let batch = 0; batch < 25; batch++) {
      sent.push(...await Promise.all(Array.from({ length: 10 }, (_, i) => client.sendMessage({ from: kit.sandbox_number, to, body: `message ${batch * 10 + i}` }))));
    }
    const firstPage = await client.listMessages({ to, limit: 100 });
    assert.equal(firstPage.data.length, 100);
    assert.equal(firstPage.has_more, true);

    const seen = [];
    for await (const message of client.listMessages({ to, limit: 100 })) seen.push(message.id);
    assert.equal(seen.length, 250);
    assert.equal(new Set(seen).size, 250);
    assert.deepEqual([...seen].sort(), sent.map((m) => m.id).sort());
    assert.deepEqual(seen, [...seen].sort().reverse(), 'newest first');
  });
});

describe('errors', () => {
  const expectProblem = async (promise, Kind, status, code) => {
    const error = await promise.then(() => assert.fail('expected an error'), (e) => e);
    assert.ok(error instanceof Kind, `expected ${Kind.name}, got ${error?.constructor?.name}: ${error?.message}`);
    assert.ok(error instanceof APIError);
    assert.equal(error.status, status);
    assert.equal(error.code, code);
    assert.equal(typeof error.detail, 'string');
    assert.match(error.requestId, /^req_/);
    assert.ok(error.headers.get('x-switchboard-ratelimit-remaining') !== null);
    return error;
  };

  test('400 BadRequestError names each bad field in errors[]', async () => {
    const error = await expectProblem(client.createCall({ from: kit.sandbox_number, to: 'not a number', timeout: 0 }), BadRequestError, 400, 'validation_failed');
    assert.ok(error.errors.length >= 1);
    assert.ok(error.errors.every((e) => typeof e.field === 'string' && typeof e.message === 'string'));
  });

  test('401 AuthenticationError for an unknown key', async () => {
    const stranger = new Switchboard({ apiKey: 'sb_test_nobodyhasthiskey', baseUrl: kit.url });
    await expectProblem(stranger.getAccount(), AuthenticationError, 401, 'invalid_api_key');
  });

  test('403 PermissionDeniedError for a key without the scope', async () => {
    const key = await client.createKey({ name: 'read calls only', scopes: ['calls:read'] });
    const reader = new Switchboard({ apiKey: key.secret, baseUrl: kit.url });
    await expectProblem(reader.createCall({ from: kit.sandbox_number, to: '+14155550100' }), PermissionDeniedError, 403, 'insufficient_scope');
  });

  test('404 NotFoundError for an unknown call', async () => {
    await expectProblem(client.getCall('call_01jd8x0v6kf5b9w3t2q1r0p9n8'), NotFoundError, 404, 'not_found');
  });

  test('409 ConflictError when rotating a revoked key', async () => {
    const key = await client.createKey({ name: 'short-lived' });
    await client.revokeKey(key.id);
    await expectProblem(client.rotateKey(key.id), ConflictError, 409, 'key_already_revoked');
  });

  test('422 UnprocessableEntityError for a from number the account does not own', async () => {
    await expectProblem(client.createCall({ from: '+14155550199', to: '+14155550100' }), UnprocessableEntityError, 422, 'from_number_not_owned');
  });

  test('429 RateLimitError once the bucket is empty (no retries)', async () => {
    const limited = new Switchboard({ apiKey: kit.limited_key, baseUrl: kit.url, maxRetries: 0 });
    let error;
    for (let i = 0; i < 200 && !error; i++) {
      await limited.getAccount().catch((e) => { error = e; });
    }
    assert.ok(error instanceof RateLimitError, `expected RateLimitError, got ${error}`);
    assert.equal(error.code, 'rate_limited');
    assert.ok(Number(error.headers.get('retry-after')) >= 1);
  });

  test('422 UnprocessableEntityError: a valid live call without a carrier is carrier_not_configured (not retried)', async () => {
    const live = new Switchboard({ apiKey: kit.live_key, baseUrl: kit.url, maxRetries: 0 });
    await expectProblem(live.createCall({ from: '+14155550100', to: '+14155550101' }), UnprocessableEntityError, 422, 'carrier_not_configured');
  });

  test('5xx InternalServerError with the code, request id and headers of the problem (no retries)', async () => {
    const proxy = await startRecordingProxy(kit.url, { failFirst: { key: 'GET /v1/account', status: 500, times: 1 } });
    try {
      const sdk = new Switchboard({ apiKey: kit.sandbox_key, baseUrl: proxy.url, maxRetries: 0 });
      const error = await expectProblem(sdk.getAccount(), InternalServerError, 500, 'internal_error');
      assert.equal(error.requestId, 'req_proxy_1');
      assert.equal(error.headers.get('x-request-id'), 'req_proxy_1');
      assert.equal(proxy.seen.length, 1);
    } finally {
      await proxy.close();
    }
  });

  test('APIConnectionError when nothing listens', async () => {
    const nowhere = new Switchboard({ apiKey: kit.sandbox_key, baseUrl: await closedPortUrl(), maxRetries: 1, initialRetryDelay: 10 });
    const error = await nowhere.getAccount().catch((e) => e);
    assert.ok(error instanceof APIConnectionError && !(error instanceof APITimeoutError), String(error));
  });
});

describe('retries and idempotency', () => {
  test('a 429 is retried after Retry-After with the same Idempotency-Key, creating exactly one call', async () => {
    const proxy = await startRecordingProxy(kit.url);
    try {
      const limited = new Switchboard({ apiKey: kit.limited_key, baseUrl: proxy.url, maxRetries: 5 });
      // The bucket gains a token every 3 s, so one can come back between the 429 that empties it
      // and the POST: that POST is simply accepted (no retry to see) and we try again.
      const created = [];
      let attempts = [];
      for (let round = 0; round < 3; round++) {
        for (let i = 0; i < 200; i++) {
          const error = await limited.getAccount({ maxRetries: 0 }).then(() => null, (e) => e);
          if (error) { assert.ok(error instanceof RateLimitError); break; }
        }
        const seenBefore = proxy.seen.length;
        created.push((await limited.createCall({ from: kit.limited_number, to: '+14155550100' })).id);
        attempts = proxy.seen.slice(seenBefore).filter((r) => r.method === 'POST' && r.path === '/v1/calls');
        if (attempts[0].status === 429) break;
      }
      assert.ok(attempts.length >= 2, `expected a retry, saw ${attempts.length} attempt(s)`);
      assert.equal(attempts[0].status, 429);
      assert.equal(attempts.at(-1).status, 200);
      const keys = new Set(attempts.map((a) => a.headers['idempotency-key']));
      assert.equal(keys.size, 1);
      assert.match([...keys][0], /^sdk-node-/);
      assert.match(attempts[0].headers['user-agent'], new RegExp(`^switchboard-node/${SDK_VERSION.replace(/\./g, '\\.')} `));

      const calls = await limited.listCalls({ limit: 100 }).toArray();
      assert.deepEqual(calls.map((c) => c.id).sort(), [...created].sort(), 'each create made exactly one call');
    } finally {
      await proxy.close();
    }
  });

  test('a 503 is retried with the same Idempotency-Key until the server answers: one call', async () => {
    const proxy = await startRecordingProxy(kit.url, { failFirst: { key: 'POST /v1/calls', status: 503, times: 2 } });
    try {
      const sdk = new Switchboard({ apiKey: kit.sandbox_key, baseUrl: proxy.url, initialRetryDelay: 50 });
      const to = '+14155550163';
      const call = await sdk.createCall({ from: kit.sandbox_number, to });
      const attempts = proxy.seen.filter((r) => r.method === 'POST' && r.path === '/v1/calls');
      assert.deepEqual(attempts.map((a) => a.status), [503, 503, 200]);
      assert.equal(new Set(attempts.map((a) => a.headers['idempotency-key'])).size, 1);
      const calls = await client.listCalls({ to }).toArray();
      assert.deepEqual(calls.map((c) => c.id), [call.id]);
    } finally {
      await proxy.close();
    }
  });

  test('a lost response is retried with the same key and replayed: one message, not two', async () => {
    const proxy = await startRecordingProxy(kit.url, { dropFirstSuccessOf: 'POST /v1/messages' });
    try {
      const sdk = new Switchboard({ apiKey: kit.sandbox_key, baseUrl: proxy.url, initialRetryDelay: 50 });
      const to = '+14155550177';
      const message = await sdk.sendMessage({ from: kit.sandbox_number, to, body: 'exactly once' });
      const attempts = proxy.seen.filter((r) => r.method === 'POST' && r.path === '/v1/messages');
      assert.equal(attempts.length, 2);
      assert.equal(attempts[0].dropped, true);
      assert.equal(attempts[0].headers['idempotency-key'], attempts[1].headers['idempotency-key']);
      assert.equal(message.lastResponse.idempotentReplayed, true);
      const all = await sdk.listMessages({ to }).toArray();
      assert.deepEqual(all.map((m) => m.id), [message.id]);
    } finally {
      await proxy.close();
    }
  });

  test('a caller-supplied Idempotency-Key is sent as given and replays the first result', async () => {
    const key = `order-${Date.now()}`;
    const first = await client.createCall({ from: kit.sandbox_number, to: '+14155550100' }, { idempotencyKey: key });
    const again = await client.createCall({ from: kit.sandbox_number, to: '+14155550100' }, { idempotencyKey: key });
    assert.equal(again.id, first.id);
    assert.equal(again.lastResponse.idempotentReplayed, true);
  });
});

describe('timeouts and response metadata', () => {
  test('a request that gets no answer times out cleanly, after the configured retries', async () => {
    const silent = await startSilentServer();
    try {
      const sdk = new Switchboard({ apiKey: kit.sandbox_key, baseUrl: silent.url, timeout: 200, maxRetries: 1, initialRetryDelay: 10 });
      const started = Date.now();
      const error = await sdk.getAccount().catch((e) => e);
      assert.ok(error instanceof APITimeoutError, String(error));
      assert.match(error.message, /timed out after 200 ms/);
      assert.equal(silent.requests(), 2);
      assert.ok(Date.now() - started < 10_000);
    } finally {
      await silent.close();
    }
  });

  test('results carry the raw response: status, request id, rate-limit headers', async () => {
    const account = await client.getAccount();
    assert.equal(account.lastResponse.status, 200);
    assert.match(account.lastResponse.requestId, /^req_/);
    assert.equal(typeof account.lastResponse.rateLimit.remaining, 'number');
    assert.equal(typeof account.lastResponse.rateLimit.reset, 'number');
    assert.equal(Object.keys(account).includes('lastResponse'), false, 'metadata stays out of the data');
  });
});

describe('analytics', () => {
  test('call analytics and usage come back typed, a bucket per day with the call counted', async () => {
    await client.createCall({ from: kit.sandbox_number, to: '+15005550001' }); // busy at once
    const calls = await client.getCallAnalytics({ interval: 'day', group_by: 'status' });
    assert.equal(calls.object, 'call_analytics');
    assert.equal(calls.data.length, 31, 'the last 30 days, widened to whole UTC days');
    assert.ok(calls.totals.attempted >= 1);
    assert.equal(typeof calls.totals.by_status.busy, 'number');
    const usage = await client.getUsage();
    assert.equal(usage.object, 'usage');
    assert.equal(usage.data[0].object, 'usage_record');
    assert.ok(usage.totals.calls.outbound.calls >= 1);
    await assert.rejects(client.getCallAnalytics({ interval: 'week' }), BadRequestError);
  });
});
