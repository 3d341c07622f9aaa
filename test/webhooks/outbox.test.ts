// The transactional outbox seen from outside: who receives which event (type filters,
// modes, a resource's own webhook_url), a rolled-back change emitting nothing, and the
// event log API.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer, type CreatedAccount } from '../helpers/server.ts';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { inTransaction } from '../../src/store/transaction.ts';
import { emit, subscribe } from './support.ts';

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

const sandbox = () => t.as(acct.keys.sandbox);
const live = () => t.as(acct.keys.live);

async function deliveredTo(key: string, eventId: string): Promise<Array<string | null>> {
  const res = await t.as(key).get(`/v1/events/${eventId}/deliveries`);
  assert.equal(res.status, 200);
  return res.body.data.map((d: any) => d.webhook_id).sort();
}

describe('fan-out', () => {
  test('subscriptions receive only the event types they subscribed to', async () => {
    const [calls, messages, all] = [await receiver(), await receiver(), await receiver()];
    const a = await subscribe(t, acct.keys.sandbox, calls, { events: ['call.completed'] });
    const b = await subscribe(t, acct.keys.sandbox, messages, { events: ['message.*'] });
    const c = await subscribe(t, acct.keys.sandbox, all, { events: ['*'] });

    const completed = await emit(t, { accountId: acct.account.id, mode: 'sandbox', type: 'call.completed' });
    const delivered = await emit(t, { accountId: acct.account.id, mode: 'sandbox', type: 'message.delivered', resourceId: 'msg_test1' });
    const ringing = await emit(t, { accountId: acct.account.id, mode: 'sandbox', type: 'call.ringing' });

    assert.deepEqual(await deliveredTo(acct.keys.sandbox, completed.id), [a.id, c.id].sort());
    assert.deepEqual(await deliveredTo(acct.keys.sandbox, delivered.id), [b.id, c.id].sort());
    assert.deepEqual(await deliveredTo(acct.keys.sandbox, ringing.id), [c.id]);

    await all.waitFor((evs) => evs.length === 3);
    assert.deepEqual((await calls.waitFor((evs) => evs.length === 1)).map((e) => e.type), ['call.completed']);
    assert.deepEqual((await messages.waitFor((evs) => evs.length === 1)).map((e) => e.type), ['message.delivered']);
    const envelope = all.events().find((e) => e.id === completed.id)!;
    assert.deepEqual(Object.keys(envelope).sort(), ['created_at', 'data', 'id', 'mode', 'object', 'sequence', 'type']);
    assert.equal(envelope.mode, 'sandbox');
    assert.equal(envelope.sequence, 1);
    assert.equal(envelope.data.object.id, completed.resource_id);
  });

  test("a resource's own webhook_url receives its events signed with the per-mode default secret", async () => {
    const own = await receiver();
    const first = await sandbox().get('/v1/webhooks/default_secret');
    assert.equal(first.status, 200);
    assert.match(first.body.secret, /^whsec_/);
    assert.equal((await sandbox().get('/v1/webhooks/default_secret')).body.secret, first.body.secret);
    const liveSecret = await live().get('/v1/webhooks/default_secret');
    assert.notEqual(liveSecret.body.secret, first.body.secret);
    own.secrets.push(first.body.secret);

    const event = await emit(t, { accountId: acct.account.id, mode: 'sandbox', type: 'message.delivered', resourceId: 'msg_own1', webhookUrl: own.url });
    const got = await own.waitForEvent('message.delivered', 'msg_own1');
    assert.equal(got.id, event.id);
    assert.ok((await deliveredTo(acct.keys.sandbox, event.id)).includes(null));

    const rotated = await sandbox().post('/v1/webhooks/default_secret/rotate', {});
    assert.notEqual(rotated.body.secret, first.body.secret);
    own.secrets.push(rotated.body.secret);
    const next = await emit(t, { accountId: acct.account.id, mode: 'sandbox', type: 'message.read', resourceId: 'msg_own1', webhookUrl: own.url });
    await own.waitFor((evs) => evs.some((e) => e.id === next.id));
    assert.deepEqual(own.deliveries.find((d) => d.event.id === next.id)!.verifiedWith, [0, 1]);
    assert.equal(own.events().find((e) => e.id === next.id)!.sequence, 2);
  });

  test('a sandbox subscription never receives live events, and ids of the other mode are 404', async () => {
    const sb = await receiver();
    const lv = await receiver();
    const s = await subscribe(t, acct.keys.sandbox, sb);
    const l = await subscribe(t, acct.keys.live, lv);
    const liveEvent = await emit(t, { accountId: acct.account.id, mode: 'live', type: 'call.completed' });
    const got = await lv.waitForEvent('call.completed', liveEvent.resource_id);
    assert.equal(got.mode, 'live');
    assert.deepEqual(await deliveredTo(acct.keys.live, liveEvent.id), [l.id]);
    assert.ok(!sb.events().some((e) => e.id === liveEvent.id));

    assert.equal((await sandbox().get(`/v1/webhooks/${l.id}`)).status, 404);
    assert.equal((await live().get(`/v1/webhooks/${s.id}`)).status, 404);
    assert.equal((await sandbox().get(`/v1/events/${liveEvent.id}`)).body.code, 'not_found');
    assert.equal((await sandbox().get(`/v1/events/${liveEvent.id}/deliveries`)).status, 404);
    assert.equal((await live().get(`/v1/events/${liveEvent.id}`)).body.id, liveEvent.id);
  });

  test('a change that rolls back emits nothing: no event, no delivery, no webhook', async () => {
    const r = await receiver();
    await subscribe(t, acct.keys.sandbox, r);
    await assert.rejects(inTransaction(t.server.database.db, async (trx) => {
      await t.server.built.events.emit(trx, {
        accountId: acct.account.id, mode: 'sandbox', type: 'call.completed', resourceType: 'call', resourceId: 'call_rolledback',
        object: { id: 'call_rolledback' }, webhookUrl: r.url, clock: t.server.built.platform.clock,
      });
      throw new Error('the state change failed after emit');
    }), /failed after emit/);
    const committed = await emit(t, { accountId: acct.account.id, mode: 'sandbox', type: 'call.completed', resourceId: 'call_committed' });
    await r.waitForEvent('call.completed', 'call_committed');
    assert.ok(!r.events().some((e) => e.data.object.id === 'call_rolledback'));
    const log = await sandbox().get('/v1/events?resource_id=call_rolledback');
    assert.deepEqual(log.body.data, []);
    const rows = await t.server.database.db.selectFrom('webhook_deliveries').select('id').where('resource_id', '=', 'call_rolledback').execute();
    assert.deepEqual(rows, []);
    assert.equal(committed.sequence, 1);
  });
});

describe('event log', () => {
  test('GET /v1/events filters by type, resource and time, pages newest first', async () => {
    const other = await t.createAccount('scale');
    const ids: string[] = [];
    const start = new Date().toISOString();
    for (let i = 0; i < 5; i++) {
      ids.push((await emit(t, { accountId: other.account.id, mode: 'sandbox', type: i % 2 ? 'message.sent' : 'call.answered', resourceId: `call_log${i % 2}` })).id);
    }
    const api = t.as(other.keys.sandbox);
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 5; page++) {
      const res: any = await api.get(`/v1/events?limit=2${cursor ? `&starting_after=${cursor}` : ''}`);
      assert.equal(res.status, 200);
      seen.push(...res.body.data.map((e: any) => e.id));
      cursor = res.body.next_cursor;
      if (!res.body.has_more) break;
    }
    assert.deepEqual(seen, [...ids].reverse());

    const byType = await api.get('/v1/events?type=message.sent');
    assert.deepEqual(byType.body.data.map((e: any) => e.id), [ids[3], ids[1]]);
    const byResource = await api.get('/v1/events?resource_id=call_log0');
    assert.deepEqual(byResource.body.data.map((e: any) => e.sequence), [3, 2, 1]);
    const future = await api.get(`/v1/events?created_gte=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`);
    assert.deepEqual(future.body.data, []);
    const since = await api.get(`/v1/events?created_gte=${encodeURIComponent(start)}&created_lte=${encodeURIComponent(new Date(Date.now() + 1000).toISOString())}`);
    assert.equal(since.body.data.length, 5);

    const one = await api.get(`/v1/events/${ids[0]}`);
    assert.equal(one.status, 200);
    assert.deepEqual(Object.keys(one.body).sort(), ['created_at', 'data', 'id', 'mode', 'object', 'sequence', 'type']);
    assert.equal((await api.get('/v1/events/evt_01jd8x0v6kf5b9w3t2q1r0p9n8')).status, 404);
    assert.equal((await t.as(acct.keys.sandbox).get(`/v1/events/${ids[0]}`)).status, 404); // another account
  });
});
