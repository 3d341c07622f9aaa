// Issue 10.5: retries back off exponentially (spec section 6), with jitter and a cap. The
// default schedule, seen through HTTP: a receiver that keeps failing is retried after about
// 5 s, then about 20 s (4x), each wait jittered down by at most 20 %; the delivery shows
// when its next attempt is due. test/unit/retry-schedule.test.ts checks the whole schedule.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type CreatedAccount, type TestServer } from '../helpers/server.ts';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

let t: TestServer;
let acct: CreatedAccount;
let receiver: WebhookReceiver;

before(async () => {
  // An empty setting keeps the default schedule (the tests' own is much shorter).
  t = await startTestServer({ SWITCHBOARD_WEBHOOK_RETRY_SCHEDULE: '' });
  acct = await t.createAccount('scale');
  receiver = await startReceiver();
  receiver.respond = () => ({ status: 500 });
});
after(async () => {
  await receiver.close();
  await t.close();
});

async function deliveryAfter(api: ReturnType<TestServer['as']>, webhookId: string, attempts: number): Promise<any> {
  for (let i = 0; i < 300; i++) {
    const list = await api.get(`/v1/webhooks/${webhookId}/deliveries`);
    assert.equal(list.status, 200, JSON.stringify(list.body));
    const delivery = list.body.data[0];
    if (delivery && delivery.attempt_count >= attempts && delivery.next_attempt_at) return delivery;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.fail(`no delivery reached ${attempts} attempts`);
}

/** The wait after the latest attempt: from when its answer came (start + latency) to the next one. */
function waitSeconds(d: any): number {
  const last = d.attempts.at(-1);
  return (Date.parse(last.next_attempt_at) - Date.parse(last.attempted_at) - last.latency_ms) / 1000;
}
// The next attempt is scheduled a moment after the answer is read: that moment is the slack.
const SLACK = 0.5;

describe('issue 10.5: webhook retries back off exponentially, jittered', () => {
  test('a failing receiver is retried after 4-5 s, then after 16-20 s', async () => {
    const api = t.as(acct.keys.sandbox);
    const endpoint = await api.post('/v1/webhooks', { url: receiver.url, events: ['*'] });
    assert.equal(endpoint.status, 200, JSON.stringify(endpoint.body));
    assert.equal((await api.post(`/v1/webhooks/${endpoint.body.id}/test`)).status, 200);

    const first = await deliveryAfter(api, endpoint.body.id, 1);
    assert.equal(first.status, 'pending');
    assert.equal(first.last_status_code, 500);
    const wait1 = waitSeconds(first);
    assert.ok(wait1 >= 5 * 0.8 && wait1 <= 5 + SLACK, `first wait ${wait1} s is 5 s less up to 20 % jitter`);

    const second = await deliveryAfter(api, endpoint.body.id, 2);
    const wait2 = waitSeconds(second);
    assert.ok(wait2 >= 20 * 0.8 && wait2 <= 20 + SLACK, `second wait ${wait2} s is 20 s less up to 20 % jitter`);
    assert.equal(second.attempts.length, 2);
    assert.equal(second.next_attempt_at, second.attempts[1].next_attempt_at);
  });
});
