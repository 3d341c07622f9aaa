import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type CreatedAccount, type TestServer } from '../helpers/server.ts';
import { defaultSecretReceiver, subscribeAll } from '../helpers/subscribe.ts';
import { importLiveNumber } from '../helpers/live-number.ts';
import { type ReceivedEvent, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

let t: TestServer;
let acct: CreatedAccount;
let hooks: WebhookReceiver;
let from: string;
const USER = '+14155550100';

before(async () => {
  t = await startTestServer();
  acct = await t.createAccount('scale');
  hooks = await subscribeAll(t, acct.keys.sandbox);
  from = acct.numbers.sandbox[0]!;
});
after(async () => {
  await hooks.close();
  await t.close();
});

const api = () => t.as(acct.keys.sandbox);

function eventsOf(events: ReceivedEvent[], id: string): ReceivedEvent[] {
  return events.filter((e) => e.data.object.id === id).sort((a, b) => a.sequence - b.sequence);
}

async function settle(id: string, count: number): Promise<ReceivedEvent[]> {
  return eventsOf(await hooks.waitFor((evs) => eventsOf(evs, id).length >= count), id);
}

describe('sending', () => {
  test('one SMS: queued at once, then exactly queued, sending, sent, delivered, each with the full message', async () => {
    const res = await api().post('/v1/messages', { from, to: USER, body: 'Your table is ready', metadata: { order: '42' } });
    assert.equal(res.status, 200);
    const msg = res.body;
    assert.match(msg.id, /^msg_/);
    assert.equal(msg.status, 'queued');
    assert.equal(msg.direction, 'outbound');
    assert.equal(msg.channel, 'sms');
    assert.equal(msg.encoding, 'gsm7');
    assert.equal(msg.segments, 1);
    assert.equal(msg.from, from);
    assert.equal(msg.to, USER);
    assert.deepEqual(msg.metadata, { order: '42' });

    const events = await settle(msg.id, 4);
    assert.deepEqual(events.map((e) => e.type), ['message.queued', 'message.sending', 'message.sent', 'message.delivered']);
    assert.deepEqual(events.map((e) => e.sequence), [1, 2, 3, 4]);
    assert.deepEqual(events.map((e) => e.data.object.status), ['queued', 'sending', 'sent', 'delivered']);
    for (const e of events) {
      assert.equal(e.data.object.body, 'Your table is ready');
      assert.equal(e.data.object.segments, 1);
      assert.deepEqual(e.data.object.metadata, { order: '42' });
    }
    const delivered = events[3]!.data.object;
    assert.ok(delivered.sent_at && delivered.delivered_at && delivered.sent_at <= delivered.delivered_at);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(eventsOf(hooks.events(), msg.id).length, 4, 'an SMS is never "read"');
    const got = await api().get(`/v1/messages/${msg.id}`);
    assert.deepEqual(got.body, delivered);
  });

  test('the message goes to its webhook_url too, by default the from number\'s, signed with the default secret', async () => {
    const own = await defaultSecretReceiver(t, acct.keys.sandbox);
    try {
      const number = (await api().get('/v1/numbers')).body.data.find((n: any) => n.phone_number === from);
      await api().patch(`/v1/numbers/${number.id}`, { webhook_url: own.url });
      const msg = (await api().post('/v1/messages', { from, to: USER, body: 'hi' })).body;
      assert.equal(msg.webhook_url, own.url);
      await own.waitForEvent('message.delivered', msg.id);
      assert.deepEqual(eventsOf(own.events(), msg.id).map((e) => e.type), ['message.queued', 'message.sending', 'message.sent', 'message.delivered']);
      const explicit = (await api().post('/v1/messages', { from, to: USER, body: 'hi', webhook_url: `${own.url}/explicit` })).body;
      assert.equal(explicit.webhook_url, `${own.url}/explicit`);
      await api().patch(`/v1/numbers/${number.id}`, { webhook_url: null });
    } finally {
      await own.close();
    }
  });

  test('magic destinations: +15005550009 is undelivered, +15005550010 fails', async () => {
    const undelivered = (await api().post('/v1/messages', { from, to: '+15005550009', body: 'x' })).body;
    const failed = (await api().post('/v1/messages', { from, to: '+15005550010', body: 'x' })).body;
    const u = await settle(undelivered.id, 4);
    assert.deepEqual(u.map((e) => e.type), ['message.queued', 'message.sending', 'message.sent', 'message.undelivered']);
    assert.equal(u[3]!.data.object.error_code, 'unreachable_destination');
    assert.deepEqual(u[3]!.data.object.failure, {
      code: 'unreachable_destination', message: 'The handset could not be reached (sandbox magic number +15005550009).', carrier_code: null,
    });
    assert.equal(u[2]!.data.object.failure, null, 'no failure while the message is fine');
    assert.ok(u[3]!.data.object.failed_at);
    const f = await settle(failed.id, 3);
    assert.deepEqual(f.map((e) => e.type), ['message.queued', 'message.sending', 'message.failed']);
    assert.equal(f[2]!.data.object.error_code, 'carrier_rejected');
    assert.equal(f[2]!.data.object.failure.code, 'carrier_rejected');
  });

  test('segments and encoding on known vectors', async () => {
    const cases: Array<[string, string, number]> = [
      ['a'.repeat(160), 'gsm7', 1],
      ['a'.repeat(161), 'gsm7', 2],
      ['😀', 'ucs2', 1],
      ['Hi 😀', 'ucs2', 1],
      ['😀'.repeat(35), 'ucs2', 1],
      ['😀'.repeat(36), 'ucs2', 2],
      ['€'.repeat(80), 'gsm7', 1],
      ['€'.repeat(81), 'gsm7', 2],
      ['{}[]~|^\\', 'gsm7', 1],
      ['a'.repeat(159) + 'ç', 'ucs2', 3],
      ['a'.repeat(1600), 'gsm7', 11],
    ];
    for (const [body, encoding, segments] of cases) {
      const res = await api().post('/v1/messages', { from, to: USER, body });
      assert.equal(res.status, 200, body.slice(0, 20));
      assert.deepEqual([res.body.encoding, res.body.segments], [encoding, segments], `${[...body].length} characters starting ${body.slice(0, 8)}`);
    }
    const tooLong = await api().post('/v1/messages', { from, to: USER, body: 'a'.repeat(1601) });
    assert.equal(tooLong.status, 400);
    assert.equal(tooLong.body.errors[0].field, 'body');
    const emojiLimit = await api().post('/v1/messages', { from, to: USER, body: '😀'.repeat(1600) });
    assert.equal(emojiLimit.status, 200, 'the limit counts characters, not UTF-16 units');
  });

  test('POST /v1/numbers/{id}/sms sends from that number', async () => {
    const number = (await api().get('/v1/numbers')).body.data.find((n: any) => n.phone_number === from);
    const res = await api().post(`/v1/numbers/${number.id}/sms`, { to: USER, body: 'from the number' });
    assert.equal(res.status, 200);
    assert.equal(res.body.from, from);
    assert.equal(res.body.channel, 'sms');
    assert.equal(res.body.number_id, number.id);
    await hooks.waitForEvent('message.delivered', res.body.id);
    assert.equal((await api().post('/v1/numbers/num_nope/sms', { to: USER, body: 'x' })).status, 404);
    assert.equal((await api().post(`/v1/numbers/${number.id}/sms`, { to: USER, body: 'x', media_urls: ['https://example.com/a.png'] })).status, 400);
  });

  test('MMS: media_urls rules', async () => {
    const ok = await api().post('/v1/messages', { from, to: USER, channel: 'mms', body: 'look', media_urls: ['https://example.com/a.png'] });
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.body.media_urls, ['https://example.com/a.png']);
    assert.equal(ok.body.segments, 1);
    await hooks.waitForEvent('message.delivered', ok.body.id);
    const checks: Array<[Record<string, unknown>, string]> = [
      [{ channel: 'mms', body: 'no media' }, 'media_urls'],
      [{ channel: 'mms', media_urls: Array.from({ length: 11 }, (_, i) => `https://example.com/${i}.png`) }, 'media_urls'],
      [{ channel: 'mms', media_urls: ['ftp://example.com/a.png'] }, 'media_urls.0'],
      [{ channel: 'sms', body: 'x', media_urls: ['https://example.com/a.png'] }, 'media_urls'],
      [{ channel: 'sms' }, 'body'],
      [{ channel: 'sms', body: 'x', template: { name: 'x', language: 'en' } }, 'template'],
    ];
    for (const [extra, field] of checks) {
      const res = await api().post('/v1/messages', { from, to: USER, ...extra });
      assert.equal(res.status, 400, JSON.stringify(extra).slice(0, 60));
      assert.equal(res.body.errors[0].field, field);
    }
  });

  test('from must be an active number of the account with the channel\'s capability', async () => {
    const notOwned = await api().post('/v1/messages', { from: '+14155559999', to: USER, body: 'x' });
    assert.equal(notOwned.status, 422);
    assert.equal(notOwned.body.code, 'from_number_not_owned');
    const [tollFree] = (await api().get('/v1/numbers/available?type=toll_free&limit=1')).body.data;
    await api().post('/v1/numbers', { phone_number: tollFree.phone_number });
    const lacks = await api().post('/v1/messages', { from: tollFree.phone_number, to: USER, channel: 'whatsapp', template: { name: 'hello', language: 'en_US' } });
    assert.equal(lacks.status, 422);
    assert.equal(lacks.body.code, 'number_lacks_capability');
    const badTo = await api().post('/v1/messages', { from, to: '+1415', body: 'x' });
    assert.equal(badTo.status, 400);
  });

  // issue 10.9
  test('live without a carrier: 422 carrier_not_configured after validation, and nothing written', async () => {
    const live = t.as(acct.keys.live);
    const bad = await live.post('/v1/messages', { from, to: '+1415', body: 'x' });
    assert.equal(bad.status, 400, 'the bad field is reported first');
    // A valid send comes from a live number of the account (a sandbox one is from_number_not_owned).
    const liveFrom = await importLiveNumber(t, acct.account.id, '+12125550189');
    const res = await live.post('/v1/messages', { from: liveFrom, to: USER, body: 'x' });
    assert.equal(res.status, 422);
    assert.equal(res.body.code, 'carrier_not_configured');
    assert.deepEqual((await live.get('/v1/messages')).body.data, []);
  });

  test('an Idempotency-Key replays the same message', async () => {
    const a = await api().post('/v1/messages', { from, to: USER, body: 'once' }, { idempotencyKey: 'msg-once-1' });
    const b = await api().post('/v1/messages', { from, to: USER, body: 'once' }, { idempotencyKey: 'msg-once-1' });
    assert.equal(a.body.id, b.body.id);
    assert.equal(b.headers.get('idempotent-replayed'), 'true');
  });
});

describe('WhatsApp', () => {
  test('free-form only inside 24 h of the user\'s last inbound message; templates always', async () => {
    const user = '+447700900123';
    const closed = await api().post('/v1/messages', { from, to: user, channel: 'whatsapp', body: 'hello' });
    assert.equal(closed.status, 422);
    assert.equal(closed.body.code, 'whatsapp_window_closed');

    const template = await api().post('/v1/messages', { from, to: user, channel: 'whatsapp', template: { name: 'appointment_reminder', language: 'en_US', variables: ['Tue 10:00'] } });
    assert.equal(template.status, 200);
    assert.equal(template.body.body, null);
    assert.deepEqual(template.body.template, { name: 'appointment_reminder', language: 'en_US', variables: ['Tue 10:00'] });

    const inbound = await api().post('/v1/sandbox/inbound_messages', { from: user, to: from, channel: 'whatsapp', body: 'Can I move it?' });
    assert.equal(inbound.status, 200);
    assert.equal(inbound.body.direction, 'inbound');
    assert.equal(inbound.body.status, 'received');
    assert.ok(inbound.body.received_at);
    const received = await hooks.waitForEvent('message.received', inbound.body.id);
    assert.equal(received.sequence, 1);
    assert.equal(received.data.object.body, 'Can I move it?');

    const open = await api().post('/v1/messages', { from, to: user, channel: 'whatsapp', body: 'Sure, Wednesday?' });
    assert.equal(open.status, 200);
    const events = await settle(open.body.id, 5);
    assert.deepEqual(events.map((e) => e.type), ['message.queued', 'message.sending', 'message.sent', 'message.delivered', 'message.read']);
    assert.ok(events[4]!.data.object.read_at);
    await settle(template.body.id, 5);

    // 24 hours later on the test clock the window has closed again.
    await api().post('/v1/sandbox/clock/advance', { seconds: 24 * 3600 + 1 });
    const late = await api().post('/v1/messages', { from, to: user, channel: 'whatsapp', body: 'Still there?' });
    assert.equal(late.status, 422);
    assert.equal(late.body.code, 'whatsapp_window_closed');
    assert.ok(late.body.window_closed_at);
  });

  test('inbound messages need a number of the account, and only the sandbox can fake them', async () => {
    const notOurs = await api().post('/v1/sandbox/inbound_messages', { from: USER, to: '+14155559999', body: 'x' });
    assert.equal(notOurs.status, 422);
    assert.equal(notOurs.body.code, 'to_number_not_owned');
    const live = await t.as(acct.keys.live).post('/v1/sandbox/inbound_messages', { from: USER, to: from, body: 'x' });
    assert.equal(live.status, 403);
    assert.equal(live.body.code, 'mode_not_supported');
  });
});

describe('canceling', () => {
  const CONGESTED = '+15005550011';

  // issue 10.17: POST /v1/messages/{id}/cancel for a message not yet handed to the carrier.
  test('a queued message (waiting with a status_reason) is canceled with message.canceled and never sent; its twin goes out', async () => {
    const doomed = (await api().post('/v1/messages', { from, to: CONGESTED, body: 'never mind' })).body;
    const twin = (await api().post('/v1/messages', { from, to: CONGESTED, body: 'still coming' })).body;
    assert.equal(doomed.status, 'queued');
    assert.match(doomed.status_reason, /^The sandbox network is congested for \+15005550011/);

    const canceled = await api().post(`/v1/messages/${doomed.id}/cancel`);
    assert.equal(canceled.status, 200, JSON.stringify(canceled.body));
    assert.equal(canceled.body.status, 'canceled');
    assert.ok(canceled.body.canceled_at);
    assert.deepEqual([canceled.body.status_reason, canceled.body.failure, canceled.body.sent_at], [null, null, null]);
    // Finishing actions repeat safely: the same message, no second event.
    const again = await api().post(`/v1/messages/${doomed.id}/cancel`);
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, canceled.body);

    // The hand-over job was due in 60 s of the test clock: it runs now and finds the message canceled.
    const advanced = await api().post('/v1/sandbox/clock/advance', { seconds: 120 });
    assert.equal(advanced.status, 200);
    const twinEvents = await settle(twin.id, 4);
    assert.deepEqual(twinEvents.map((e) => e.type), ['message.queued', 'message.sending', 'message.sent', 'message.delivered']);
    const mine = eventsOf(hooks.events(), doomed.id);
    assert.deepEqual(mine.map((e) => e.type), ['message.queued', 'message.canceled']);
    assert.equal(mine[1]!.data.object.status, 'canceled');
    assert.deepEqual((await api().get(`/v1/messages/${doomed.id}`)).body, canceled.body);
    assert.deepEqual((await api().get(`/v1/messages?status=canceled&to=${encodeURIComponent(CONGESTED)}`)).body.data.map((m: any) => m.id), [doomed.id]);
  });

  test('after hand-off to the carrier it is a 409 naming the status; inbound messages cannot be canceled', async () => {
    const msg = (await api().post('/v1/messages', { from, to: USER, body: 'on its way' })).body;
    await settle(msg.id, 3);
    const late = await api().post(`/v1/messages/${msg.id}/cancel`);
    assert.equal(late.status, 409);
    assert.equal(late.body.code, 'message_not_cancelable');
    assert.ok(['sent', 'delivered'].includes(late.body.message_status), 'the problem names the status');
    assert.match(late.body.detail, new RegExp(`^Message ${msg.id} is ${late.body.message_status} and cannot be canceled: its carrier has taken it already`));
    assert.notEqual((await api().get(`/v1/messages/${msg.id}`)).body.status, 'canceled');

    const inbound = (await api().post('/v1/sandbox/inbound_messages', { from: USER, to: from, body: 'hello' })).body;
    const refused = await api().post(`/v1/messages/${inbound.id}/cancel`);
    assert.equal(refused.status, 409);
    assert.equal(refused.body.message_status, 'received');
  });

  test('another mode or an unknown id is a 404; a read-only key is refused', async () => {
    const msg = (await api().post('/v1/messages', { from, to: CONGESTED, body: 'x' })).body;
    assert.equal((await t.as(acct.keys.live).post(`/v1/messages/${msg.id}/cancel`)).status, 404);
    assert.equal((await api().post('/v1/messages/msg_01jd8x0v6kf5b9w3t2q1r0p9n8/cancel')).status, 404);
    const reader = await api().post('/v1/keys', { name: 'reader', scopes: ['messages:read'] });
    const refused = await t.as(reader.body.secret).post(`/v1/messages/${msg.id}/cancel`);
    assert.equal(refused.status, 403);
    assert.equal((await api().get(`/v1/messages/${msg.id}`)).body.status, 'queued');
  });
});
