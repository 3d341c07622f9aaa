// GET /v1/analytics/queues over sandbox callers who really waited: one taken out and bridged,
// one who hung up while waiting, one whose max_wait_seconds passed, one still waiting. The
// waits are checked against the wait_seconds each caller's call.queue.left reported.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type CreatedAccount, type TestServer } from '../helpers/server.ts';
import type { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { MAGIC, ORDINARY } from '../voice/voice-helpers.ts';
import { subscribeAll } from '../helpers/subscribe.ts';
import { waitForFlowEvent } from '../voice/flow-helpers.ts';

let t: TestServer;
let acct: CreatedAccount;
let receiver: WebhookReceiver;
const api = () => t.as(acct.keys.sandbox);
let sales: any;
let support: any;
let stillWaiting = '';
const waits: number[] = []; // wait_seconds of the callers whose wait ended

async function caller(queue: string): Promise<string> {
  const res = await api().post('/v1/calls', { from: acct.numbers.sandbox[0], to: MAGIC.staysUp, flow: [{ enqueue: { queue } }, { hangup: {} }] });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  await waitForFlowEvent(receiver, res.body.id, 'call.queue.joined');
  return res.body.id;
}

async function leftWith(callId: string, result: string): Promise<void> {
  const [left] = await waitForFlowEvent(receiver, callId, 'call.queue.left');
  assert.equal(left!.data.object.result, result);
  waits.push(left!.data.object.wait_seconds);
}

/** Nearest rank, as the API computes it. */
function nearestRank(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil((p * sorted.length) / 100) - 1]!;
}

before(async () => {
  t = await startTestServer();
  acct = await t.createAccount('scale');
  receiver = await subscribeAll(t, acct.keys.sandbox);
  sales = (await api().post('/v1/queues', { name: 'sales' })).body;
  support = (await api().post('/v1/queues', { name: 'support', max_wait_seconds: 2 })).body;

  const taken = await caller('sales');
  const hungUp = await caller('sales');
  const timedOut = await caller('support');
  stillWaiting = await caller('sales');
  const dequeued = await api().post(`/v1/queues/${sales.id}/members/${taken}/dequeue`, { to: ORDINARY });
  assert.equal(dequeued.status, 200, JSON.stringify(dequeued.body));
  assert.equal((await api().post(`/v1/calls/${hungUp}/hangup`)).status, 200);
  await leftWith(taken, 'bridged');
  await leftWith(hungUp, 'hangup');
  await leftWith(timedOut, 'timeout');
});

after(async () => {
  await api().post(`/v1/calls/${stillWaiting}/hangup`);
  await receiver?.close();
  await t?.close();
});

describe('GET /v1/analytics/queues', () => {
  test('callers that joined, how their wait ended, and the waits p50/p95 and longest', async () => {
    const res = await api().get('/v1/analytics/queues?interval=hour');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const a = res.body;
    assert.deepEqual([a.object, a.mode, a.interval, a.group_by, a.queue_id], ['queue_analytics', 'sandbox', 'hour', null, null]);
    assert.equal(a.data.length, 25, 'the last 24 hours, widened to whole hours');
    const { totals } = a;
    assert.deepEqual(
      [totals.entered, totals.answered, totals.abandoned, totals.timed_out, totals.waiting, totals.answer_rate],
      [4, 1, 1, 1, 1, 0.3333],
    );
    assert.deepEqual(totals.by_result, { bridged: 1, hangup: 1, timeout: 1 });
    assert.deepEqual(totals.wait_seconds, { p50: nearestRank(waits, 50), p95: nearestRank(waits, 95) });
    assert.equal(totals.longest_wait_seconds, Math.max(...waits));
    assert.ok(waits[2]! >= 2, `the timed-out caller waited its 2 s max_wait_seconds (${waits[2]})`);
    // The buckets add up to the totals.
    assert.equal(a.data.reduce((n: number, b: any) => n + b.entered, 0), 4);
  });

  test('group_by=queue splits by queue id; queue_id keeps one queue', async () => {
    const grouped = await api().get('/v1/analytics/queues?interval=day&group_by=queue');
    assert.equal(grouped.status, 200, JSON.stringify(grouped.body));
    const rows = grouped.body.totals.groups.map((g: any) => [g.value, g.entered, g.answered, g.abandoned, g.timed_out, g.waiting]);
    assert.deepEqual(rows, [
      [sales.id, 3, 1, 1, 0, 1],
      [support.id, 1, 0, 0, 1, 0],
    ].sort((x, y) => (x[0] < y[0] ? -1 : 1)));
    const one = await api().get(`/v1/analytics/queues?queue_id=${support.id}`);
    assert.deepEqual([one.body.queue_id, one.body.totals.entered, one.body.totals.longest_wait_seconds], [support.id, 1, waits[2]]);
  });

  test('the live mode sees none of the sandbox callers; bad input is a 400 problem', async () => {
    const live = await t.as(acct.keys.live).get('/v1/analytics/queues');
    assert.equal(live.status, 200, JSON.stringify(live.body));
    assert.deepEqual([live.body.totals.entered, live.body.totals.wait_seconds, live.body.totals.longest_wait_seconds], [0, { p50: null, p95: null }, null]);
    const bad = await api().get('/v1/analytics/queues?group_by=agent');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.errors[0].field, 'group_by');
  });
});
