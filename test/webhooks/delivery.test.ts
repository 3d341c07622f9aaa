// Delivery through real HTTP receivers on 127.0.0.1, every signature verified by the
// `standardwebhooks` package: retries, dead letters and replay, 410, Retry-After, rotation.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer, type CreatedAccount } from '../helpers/server.ts';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { subscribe, until } from './support.ts';

let t: TestServer;
let acct: CreatedAccount;
const receivers: WebhookReceiver[] = [];

before(async () => {
  t = await startTestServer();
  acct = await t.createAccount('scale');
});
after(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await t.close();
});

async function receiver(): Promise<WebhookReceiver> {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

const api = () => t.as(acct.keys.sandbox);

async function deliveriesOf(webhookId: string, query = '') {
  const res = await api().get(`/v1/webhooks/${webhookId}/deliveries${query}`);
  assert.equal(res.status, 200);
  return res.body;
}

describe('webhook delivery', () => {
  test('a receiver failing twice gets the event on the third attempt, signed and recorded', async () => {
    const r = await receiver();
    r.respond = (_d, count) => ({ status: count <= 2 ? 500 : 200 });
    const wh = await subscribe(t, acct.keys.sandbox, r);
    const sent = await api().post(`/v1/webhooks/${wh.id}/test`);
    assert.equal(sent.status, 200);
    assert.match(sent.body.id, /^evt_/);
    assert.equal(sent.body.type, 'webhook.test');

    const got = await r.waitForEvent('webhook.test', wh.id);
    assert.equal(got.id, sent.body.id);
    assert.equal(r.deliveries.length, 1);
    const headers = r.deliveries[0]!.headers;
    assert.equal(headers['webhook-id'], sent.body.id);
    assert.match(String(headers['webhook-signature']), /^v1,[A-Za-z0-9+/=]+$/);
    assert.match(String(headers['webhook-timestamp']), /^\d+$/);

    const page = await until(() => deliveriesOf(wh.id), (p) => p.data[0]?.status === 'succeeded');
    const delivery = page.data[0];
    assert.equal(delivery.event_id, sent.body.id);
    assert.equal(delivery.attempt_count, 3);
    assert.deepEqual(delivery.attempts.map((a: any) => a.status_code), [500, 500, 200]);
    assert.deepEqual(delivery.attempts.map((a: any) => a.attempt), [1, 2, 3]);
    assert.equal(delivery.attempts[0].response_excerpt, 'nope');
    assert.ok(delivery.attempts[0].next_attempt_at > delivery.attempts[0].attempted_at);
    assert.equal(delivery.attempts[2].next_attempt_at, null);
    for (const a of delivery.attempts) assert.equal(typeof a.latency_ms, 'number');

    const byEvent = await api().get(`/v1/events/${sent.body.id}/deliveries`);
    assert.equal(byEvent.status, 200);
    assert.deepEqual(byEvent.body.data.map((d: any) => d.id), [delivery.id]);
  });

  test('an always-failing receiver ends in dead letters; replays after it recovers deliver every one', async () => {
    const r = await receiver();
    r.respond = () => ({ status: 500 });
    const wh = await subscribe(t, acct.keys.sandbox, r);
    const since = new Date(Date.now() - 1000).toISOString();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await api().post(`/v1/webhooks/${wh.id}/test`)).body.id);

    const dead = await until(
      () => api().get(`/v1/webhooks/dead_letters?webhook_id=${wh.id}&limit=2`).then((res) => res.body),
      (body) => body.data.length === 2 && body.has_more === true,
    );
    const rest = await until(
      () => api().get(`/v1/webhooks/dead_letters?webhook_id=${wh.id}&limit=2&starting_after=${dead.next_cursor}`).then((res) => res.body),
      (body) => body.data.length === 1,
    );
    assert.equal(rest.has_more, false);
    const letters = [...dead.data, ...rest.data];
    assert.deepEqual(letters.map((d: any) => d.event_id).sort(), [...ids].sort());
    for (const d of letters) {
      assert.equal(d.status, 'dead');
      assert.equal(d.attempt_count, 1 + t.config.webhookRetrySchedule.length);
      assert.ok(d.dead_lettered_at);
      assert.equal(d.attempts.at(-1).next_attempt_at, null);
    }
    assert.equal(r.deliveries.length, 0);
    // issue 10.17: one dead letter by id: the same as in the list, attempts included.
    const single = await api().get(`/v1/webhooks/dead_letters/${letters[0].id}`);
    assert.equal(single.status, 200);
    assert.deepEqual(single.body, letters[0]);
    assert.equal((await t.as(acct.keys.live).get(`/v1/webhooks/dead_letters/${letters[0].id}`)).status, 404);

    r.respond = () => ({ status: 200 });
    const one = await api().post(`/v1/webhooks/dead_letters/${letters[0].id}/replay`);
    assert.equal(one.status, 200);
    assert.equal(one.body.status, 'pending');
    assert.equal(one.body.replay_count, 1);
    // Replayed, it is no longer a dead letter: 404 that says where to find it.
    const replayed = await api().get(`/v1/webhooks/dead_letters/${letters[0].id}`);
    assert.equal(replayed.status, 404);
    assert.match(replayed.body.detail, /not a dead letter/);
    await r.waitForEvent('webhook.test', wh.id);
    assert.equal(r.events()[0]!.id, letters[0].event_id);

    const bulk = await api().post(`/v1/webhooks/${wh.id}/replay`, { since });
    assert.equal(bulk.status, 200);
    assert.deepEqual(bulk.body, { object: 'webhook_replay', replayed: 2, has_more: false });
    const events = await r.waitFor((evs) => evs.length === 3);
    assert.deepEqual(events.map((e) => e.id).sort(), [...ids].sort());
    assert.deepEqual(r.deliveries.map((d) => d.headers['webhook-id']).sort(), [...ids].sort());

    const empty = await until(() => api().get(`/v1/webhooks/dead_letters?webhook_id=${wh.id}`).then((res) => res.body), (b) => b.data.length === 0);
    assert.equal(empty.has_more, false);
    const again = await until(() => api().post(`/v1/webhooks/dead_letters/${letters[0].id}/replay`), (res) => res.status === 409);
    assert.equal(again.body.code, 'delivery_not_replayable');
  });

  test('a secret this server cannot open is a failed attempt: retried on the schedule, then a dead letter naming why, replayable once fixed', async () => {
    const r = await receiver();
    const wh = await subscribe(t, acct.keys.sandbox, r);
    const db = t.server.database.db;
    const { secret_ciphertext: sealed } = await db.selectFrom('webhook_endpoints').select('secret_ciphertext').where('id', '=', wh.id).executeTakeFirstOrThrow();
    // As if another node with another key had sealed it: this server's key cannot open it.
    await db.updateTable('webhook_endpoints').set({ secret_ciphertext: 'v1.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA.AAAA' }).where('id', '=', wh.id).execute();
    const sent = (await api().post(`/v1/webhooks/${wh.id}/test`)).body.id;

    const dead = await until(
      () => api().get(`/v1/webhooks/dead_letters?webhook_id=${wh.id}`).then((res) => res.body),
      (body) => body.data.length === 1,
    );
    const letter = dead.data[0];
    assert.equal(letter.event_id, sent);
    assert.equal(letter.attempt_count, 1 + t.config.webhookRetrySchedule.length);
    assert.match(letter.last_error, /^could not sign the delivery/);
    assert.equal(r.deliveries.length, 0);

    await db.updateTable('webhook_endpoints').set({ secret_ciphertext: sealed }).where('id', '=', wh.id).execute();
    assert.equal((await api().post(`/v1/webhooks/dead_letters/${letter.id}/replay`)).status, 200);
    await r.waitForEvent('webhook.test', wh.id);
    assert.equal(r.events()[0]!.id, sent);
  });

  test('410 Gone disables the endpoint; re-enabling it delivers again', async () => {
    const r = await receiver();
    r.respond = () => ({ status: 410 });
    const wh = await subscribe(t, acct.keys.sandbox, r);
    await api().post(`/v1/webhooks/${wh.id}/test`);
    const disabled = await until(() => api().get(`/v1/webhooks/${wh.id}`).then((res) => res.body), (b) => b.enabled === false);
    assert.equal(disabled.disabled_reason, 'gone');
    const page = await deliveriesOf(wh.id);
    assert.equal(page.data[0].status, 'failed');
    assert.equal(page.data[0].attempt_count, 1);
    assert.match(page.data[0].last_error, /410/);

    const refused = await api().post(`/v1/webhooks/${wh.id}/test`);
    assert.equal(refused.status, 409);
    assert.equal(refused.body.code, 'webhook_disabled');

    r.respond = () => ({ status: 200 });
    const enabled = await api().patch(`/v1/webhooks/${wh.id}`, { enabled: true });
    assert.equal(enabled.body.enabled, true);
    assert.equal(enabled.body.disabled_reason, null);
    const sent = await api().post(`/v1/webhooks/${wh.id}/test`);
    assert.equal((await r.waitForEvent('webhook.test', wh.id)).id, sent.body.id);
  });

  test('Retry-After on 429 is honoured before the next attempt', async () => {
    const r = await receiver();
    r.respond = (_d, count) => (count === 1 ? { status: 429, headers: { 'retry-after': '2' } } : { status: 200 });
    const wh = await subscribe(t, acct.keys.sandbox, r);
    await api().post(`/v1/webhooks/${wh.id}/test`);
    await r.waitForEvent('webhook.test', wh.id);
    const [first, second] = (await until(() => deliveriesOf(wh.id), (p) => p.data[0]?.status === 'succeeded')).data[0].attempts;
    assert.equal(first.status_code, 429);
    // The schedule says 0.2 s; the receiver asked for 2 s.
    assert.ok(Date.parse(first.next_attempt_at) - Date.parse(first.attempted_at) >= 2000, JSON.stringify(first));
    assert.ok(second.attempted_at >= first.next_attempt_at);
    assert.equal(second.status_code, 200);
  });

  test('during a rotation grace period deliveries verify with both secrets, after it only with the new one', async () => {
    const r = await receiver();
    const wh = await subscribe(t, acct.keys.sandbox, r); // secrets[0]
    const rotated = await api().post(`/v1/webhooks/${wh.id}/rotate_secret`, {});
    assert.equal(rotated.status, 200);
    assert.match(rotated.body.secret, /^whsec_[A-Za-z0-9+/=]{40,}$/);
    assert.notEqual(rotated.body.secret, wh.secret);
    assert.ok(rotated.body.previous_secret_expires_at);
    r.secrets.push(rotated.body.secret); // secrets[1]

    const first = await api().post(`/v1/webhooks/${wh.id}/test`);
    await r.waitFor((evs) => evs.some((e) => e.id === first.body.id));
    const graced = r.deliveries.find((d) => d.event.id === first.body.id)!;
    assert.deepEqual(graced.verifiedWith, [0, 1]);
    assert.equal(String(graced.headers['webhook-signature']).split(' ').length, 2);

    const cut = await api().post(`/v1/webhooks/${wh.id}/rotate_secret`, { expires_in_seconds: 0 });
    assert.equal(cut.body.previous_secret_expires_at, null);
    r.secrets.push(cut.body.secret); // secrets[2]
    const second = await api().post(`/v1/webhooks/${wh.id}/test`);
    await r.waitFor((evs) => evs.some((e) => e.id === second.body.id));
    assert.deepEqual(r.deliveries.find((d) => d.event.id === second.body.id)!.verifiedWith, [2]);

    const shown = await api().get(`/v1/webhooks/${wh.id}`);
    assert.equal(shown.body.secret, undefined);
  });
});
