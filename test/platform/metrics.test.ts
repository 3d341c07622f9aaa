// GET /metrics: off by default; on its own listener or behind a bearer token (never an API
// key); and its counters move with real traffic: a sandbox call, a message and the webhook
// deliveries of their events to a receiver on 127.0.0.1.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../helpers/server.ts';
import { useSandboxAccount } from '../helpers/sandbox-account.ts';
import { declares, scrape, value } from '../helpers/metrics.ts';
import { loadConfig } from '../../src/config.ts';

const TOKEN = 'scrape-token-for-tests-0123456789';

describe('metrics are off by default', () => {
  test('no listener of their own, and the API answers 404 for /metrics', async () => {
    const server = await startTestServer();
    try {
      assert.equal(server.server.metricsUrl, undefined);
      const res = await scrape(server.url);
      assert.equal(res.status, 404);
      assert.equal(res.body.code, 'route_not_found');
      // A bearer token there is just a wrong API key, like on any other path.
      assert.equal((await scrape(server.url, TOKEN)).body.code, 'invalid_api_key');
    } finally {
      await server.close();
    }
  });

  test('a metrics token shaped like an API key, or too short, refuses to start', () => {
    assert.throws(() => loadConfig({ SWITCHBOARD_METRICS_TOKEN: 'sb_live_0123456789abcdef' }), /must not be an API key/);
    assert.throws(() => loadConfig({ SWITCHBOARD_METRICS_TOKEN: 'short' }), /at least 16 characters/);
    assert.throws(() => loadConfig({ SWITCHBOARD_METRICS_PORT: 'ninety' }), /must be a number/);
  });
});

describe('a token alone: /metrics on the API listener, behind the bearer token', () => {
  const sb = useSandboxAccount({ SWITCHBOARD_METRICS_TOKEN: TOKEN });

  test('no token, a wrong token and an API key are 401 problems; the token is 200', async () => {
    for (const [token, why] of [[undefined, 'missing'], ['not-the-metrics-token-at-all', 'wrong'], [sb.account.keys.sandbox, 'an API key'], [sb.account.keys.live, 'a live API key']] as const) {
      const res = await scrape(sb.server.url, token);
      assert.equal(res.status, 401, why);
      assert.equal(res.headers.get('content-type'), 'application/problem+json; charset=utf-8', why);
      assert.equal(res.body.code, 'invalid_metrics_token', why);
      assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="metrics"', why);
    }
    const ok = await scrape(sb.server.url, TOKEN);
    assert.equal(ok.status, 200);
    assert.match(ok.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    assert.ok(declares(ok.text, 'process_cpu_user_seconds_total'), "prom-client's default process metrics");
    assert.ok(declares(ok.text, 'nodejs_eventloop_lag_seconds'), "prom-client's default Node metrics");
  });

  test('a scrape is not an API request: it is absent from the OpenAPI document', async () => {
    const doc = (await sb.server.request('GET', '/v1/openapi.json')).body;
    assert.equal(doc.paths['/metrics'], undefined);
  });
});

describe('a listener of their own (SWITCHBOARD_METRICS_PORT), with a token', () => {
  const sb = useSandboxAccount({ SWITCHBOARD_METRICS_PORT: '0', SWITCHBOARD_METRICS_TOKEN: TOKEN });
  const metrics = () => {
    const url = sb.server.server.metricsUrl;
    assert.ok(url, 'the metrics listener is up');
    return url;
  };
  const read = async () => {
    const res = await scrape(metrics(), TOKEN);
    assert.equal(res.status, 200, res.text);
    return res.text;
  };

  test('only there: the API listener answers 404; the listener itself 401 without the token', async () => {
    assert.notEqual(metrics(), sb.server.url);
    assert.equal((await scrape(sb.server.url)).body.code, 'route_not_found');
    const refused = await scrape(metrics(), sb.account.keys.sandbox);
    assert.equal(refused.status, 401);
    assert.equal(refused.body.code, 'invalid_metrics_token');
    assert.equal((await scrape(metrics())).status, 401);
    const other = await fetch(`${metrics()}/v1/account`, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(other.status, 404);
    assert.equal((await other.json()).code, 'route_not_found');
  });

  test('a sandbox call moves the HTTP, call, transaction and webhook figures', async () => {
    const before = await read();
    const placed = await sb.api().post('/v1/calls', { from: sb.from, to: '+14155550100', record: false });
    assert.equal(placed.status, 200);
    assert.equal((await sb.api().get(`/v1/calls/${placed.body.id}`)).status, 200);
    assert.equal((await sb.api().get('/v1/calls/call_unknown')).status, 404);
    assert.equal((await sb.api().get(`/v1/no-such-resource/${placed.body.id}`)).status, 404);
    await sb.receiver.waitForEvent('call.completed', placed.body.id);
    const after = await read();
    const delta = (name: string, labels: Record<string, string> = {}) => value(after, name, labels) - value(before, name, labels);

    assert.equal(delta('switchboard_http_requests_total', { method: 'POST', route: '/v1/calls', status: '200' }), 1);
    assert.equal(delta('switchboard_http_requests_total', { method: 'GET', route: '/v1/calls/:id', status: '200' }), 1, 'by route template, not by path');
    assert.equal(value(after, 'switchboard_http_requests_total', { route: `/v1/calls/${placed.body.id}` }), 0);
    assert.equal(delta('switchboard_http_requests_total', { method: 'GET', route: '/v1/calls/:id', status: '404' }), 1, 'a refusal counts under its route and status');
    assert.equal(delta('switchboard_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }), 1, 'no route: one label, not the raw path');
    assert.equal(delta('switchboard_http_request_duration_seconds_count', { method: 'GET', route: '/v1/calls/:id' }), 2);
    assert.equal(delta('switchboard_http_request_duration_seconds_count', { method: 'POST', route: '/v1/calls' }), 1);
    for (const status of ['queued', 'ringing', 'in_progress', 'completed']) {
      assert.equal(delta('switchboard_calls_total', { mode: 'sandbox', direction: 'outbound', status }), 1, status);
    }
    assert.equal(delta('switchboard_calls_total', { mode: 'live' }), 0);
    assert.ok(delta('switchboard_db_transaction_seconds_count') >= 4, 'the create and every transition are transactions');
    assert.ok(declares(after, 'switchboard_calls_active'));
    assert.equal(value(after, 'switchboard_calls_active', { mode: 'live' }), 0);

    // The receiver got the call's events: each was one successful delivery attempt, timed.
    await sb.receiver.waitFor((events) => events.filter((e) => e.data.object.id === placed.body.id).length >= 4);
    const delivered = await read();
    assert.ok(value(delivered, 'switchboard_webhook_deliveries_total', { outcome: 'succeeded' }) - value(before, 'switchboard_webhook_deliveries_total', { outcome: 'succeeded' }) >= 4);
    assert.ok(value(delivered, 'switchboard_webhook_delivery_seconds_count') - value(before, 'switchboard_webhook_delivery_seconds_count') >= 4);
  });

  test('a message moves the message counters through every status it takes', async () => {
    const before = await read();
    const sent = await sb.api().post('/v1/messages', { from: sb.from, to: '+14155550100', body: 'hello metrics' });
    assert.equal(sent.status, 200);
    await sb.receiver.waitForEvent('message.delivered', sent.body.id);
    const after = await read();
    for (const status of ['queued', 'sending', 'sent', 'delivered']) {
      assert.equal(value(after, 'switchboard_messages_total', { channel: 'sms', status }) - value(before, 'switchboard_messages_total', { channel: 'sms', status }), 1, status);
    }
    assert.equal(value(after, 'switchboard_messages_total', { status: 'failed' }) - value(before, 'switchboard_messages_total', { status: 'failed' }), 0);
  });

  test('a failing receiver: retries then a dead letter, counted by outcome', async () => {
    const before = await read();
    sb.receiver.respond = () => ({ status: 500 });
    try {
      const sent = await sb.api().post('/v1/messages', { from: sb.from, to: '+14155550100', body: 'nobody home' });
      assert.equal(sent.status, 200);
      let after = before;
      // Retries run on the test server's short schedule (0.2, 0.5, 1 s); a dead letter ends each delivery.
      for (let i = 0; i < 300 && value(after, 'switchboard_webhook_deliveries_total', { outcome: 'dead' }) === value(before, 'switchboard_webhook_deliveries_total', { outcome: 'dead' }); i++) {
        await new Promise((r) => setTimeout(r, 50));
        after = await read();
      }
      const delta = (outcome: string) => value(after, 'switchboard_webhook_deliveries_total', { outcome }) - value(before, 'switchboard_webhook_deliveries_total', { outcome });
      assert.ok(delta('dead') >= 1, 'a delivery failed its last attempt');
      assert.ok(delta('retry') >= 3 * delta('dead'), 'each dead letter was retried on the whole schedule first');
    } finally {
      sb.receiver.respond = () => ({ status: 200 });
    }
  });

  test('job gauges are read from the store on each scrape', async () => {
    const text = await read();
    assert.ok(declares(text, 'switchboard_jobs_ready'));
    assert.ok(declares(text, 'switchboard_job_lag_seconds'));
    assert.ok(value(text, 'switchboard_job_lag_seconds') >= 0);
  });
});
