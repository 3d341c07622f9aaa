// GET /v1/analytics/webhooks over real deliveries to a real receiver: every event of a sandbox
// message reaches the account's subscription; then the receiver answers 410 Gone and the
// delivery stops, failed.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useSandboxAccount } from '../helpers/sandbox-account.ts';

describe('GET /v1/analytics/webhooks', () => {
  const sb = useSandboxAccount();

  async function settled(): Promise<any> {
    for (let i = 0; i < 200; i++) {
      const res = await sb.api().get('/v1/analytics/webhooks?interval=hour&group_by=endpoint');
      assert.equal(res.status, 200, JSON.stringify(res.body));
      if (res.body.totals.pending === 0 && res.body.totals.deliveries > 0) return res.body;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('deliveries did not settle');
  }

  test('deliveries, success rate, attempts and latency, by endpoint', async () => {
    const sent = await sb.api().post('/v1/messages', { from: sb.from, to: '+14155550100', body: 'hello' });
    assert.equal(sent.status, 200);
    await sb.receiver.waitForEvent('message.delivered', sent.body.id);
    const a = await settled();
    assert.equal(a.object, 'webhook_analytics');
    const received = sb.receiver.deliveries.length;
    assert.equal(a.totals.deliveries, received, 'one delivery per event the receiver got');
    assert.equal(a.totals.succeeded, received);
    assert.equal(a.totals.failed, 0);
    assert.equal(a.totals.dead_lettered, 0);
    assert.equal(a.totals.success_rate, 1);
    assert.equal(a.totals.attempts, received);
    assert.ok(a.totals.attempt_latency_ms.p50 !== null && a.totals.attempt_latency_ms.p50 >= 0);
    assert.ok(a.totals.attempt_latency_ms.p99 >= a.totals.attempt_latency_ms.p50);

    const endpoints = (await sb.api().get('/v1/webhooks')).body.data as Array<{ id: string }>;
    assert.deepEqual(a.totals.groups.map((g: any) => [g.value, g.deliveries]), [[endpoints[0]!.id, received]]);
    assert.equal(a.data.length, 25, 'the last 24 hours by hour, widened to whole hours');
    assert.equal(a.data.reduce((s: number, b: any) => s + b.deliveries, 0), received);
  });

  test('a 410 Gone stops the delivery: failed, and the success rate drops', async () => {
    const before = (await settled()).totals;
    sb.receiver.respond = () => ({ status: 410 });
    const sent = await sb.api().post('/v1/messages', { from: sb.from, to: '+14155550100', body: 'gone' });
    assert.equal(sent.status, 200);
    let after: any;
    for (let i = 0; i < 200; i++) {
      after = await settled();
      if (after.totals.failed > 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(after.totals.failed >= 1, JSON.stringify(after.totals));
    assert.equal(after.totals.succeeded, before.succeeded);
    assert.equal(after.totals.success_rate, Math.round((before.succeeded / (before.succeeded + after.totals.failed)) * 10_000) / 10_000);
  });

  test('another account and the live mode see none of these deliveries', async () => {
    const live = await sb.server.as(sb.account.keys.live).get('/v1/analytics/webhooks');
    assert.equal(live.status, 200);
    assert.equal(live.body.totals.deliveries, 0);
    const other = await sb.server.createAccount('scale');
    const theirs = await sb.server.as(other.keys.sandbox).get('/v1/analytics/webhooks');
    assert.equal(theirs.body.totals.deliveries, 0);
    assert.deepEqual(theirs.body.totals.attempt_latency_ms, { p50: null, p99: null });
  });
});
