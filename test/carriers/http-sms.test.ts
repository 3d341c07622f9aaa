// Live SMS and MMS over an HTTP provider (Twilio's Messaging API), against a local server
// implementing Twilio's documented request and callback shapes with signatures computed by
// the official `twilio` package (test/helpers/fake-twilio.ts), through our HTTP API and webhooks.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type CreatedAccount, type TestServer } from '../helpers/server.ts';
import { subscribeAll } from '../helpers/subscribe.ts';
import type { ReceivedEvent, WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { startFakeTwilio, type FakeTwilio } from '../helpers/fake-twilio.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { probeTwilio } from '../../src/carriers/http-sms/probe.ts';
import type { HttpSmsConfig } from '../../src/carriers/http-sms/config.ts';

const OURS = '+14155550195';
const SID = `AC${'0123456789abcdef'.repeat(2)}`;
const TOKEN = 'twilio-auth-token-1';
let t: TestServer;
let tw: FakeTwilio;
let acct: CreatedAccount;
let hooks: WebhookReceiver;
let inboundUrl: string;

before(async () => {
  tw = await startFakeTwilio({ accountSid: SID, authToken: TOKEN });
  process.env.TEST_TWILIO_TOKEN = TOKEN;
  const file = join(mkdtempSync(join(tmpdir(), 'sb-http-sms-')), 'carriers.yaml');
  writeFileSync(file, `http_sms:\n  - { name: twilio-main, provider: twilio, account_sid: ${SID}, auth_token: "env:TEST_TWILIO_TOKEN", api_base_url: "${tw.baseUrl}" }\n`);
  t = await startTestServer({ SWITCHBOARD_CARRIERS_FILE: file });
  inboundUrl = `${t.url}/hooks/carriers/twilio-main`;
  acct = await t.createAccount('scale');
  hooks = await subscribeAll(t, acct.keys.live);
  await t.server.built.services.numbers.importNumber(systemClock, {
    accountId: acct.account.id, mode: 'live', phoneNumber: OURS, capabilities: ['sms', 'mms'], type: 'mobile', country: 'US', inventory: false,
  });
});
after(async () => {
  await hooks.close();
  await t.close();
  await tw.close();
});

const live = () => t.as(acct.keys.live);

function eventsOf(id: string): ReceivedEvent[] {
  return hooks.events().filter((e) => e.data.object.id === id).sort((a, b) => a.sequence - b.sequence);
}

async function until(id: string, type: string): Promise<ReceivedEvent[]> {
  await hooks.waitFor(() => eventsOf(id).some((e) => e.type === type), 20_000);
  return eventsOf(id);
}

async function send(body: object) {
  const res = await live().post('/v1/messages', { from: OURS, ...body });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

async function createdFor(to: string) {
  for (let i = 0; i < 200; i++) {
    const c = tw.created.find((x) => x.form.get('To') === to);
    if (c) return c;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`Twilio got no message for ${to}`);
}

describe('SMS and MMS over Twilio', () => {
  test('an SMS is created with Basic auth and a StatusCallback; the signed delivered callback makes it delivered', async () => {
    const msg = await send({ to: '+447700900501', body: 'Hello over HTTP' });
    const created = await createdFor('+447700900501');
    assert.equal(tw.authorizations.at(-1), `Basic ${Buffer.from(`${SID}:${TOKEN}`).toString('base64')}`);
    assert.deepEqual([created.form.get('From'), created.form.get('Body'), created.form.get('StatusCallback')], [OURS, 'Hello over HTTP', `${inboundUrl}?event=status`]);
    await until(msg.id, 'message.sent');
    assert.equal(await tw.statusCallback(created.sid, 'sent'), 200);
    assert.equal(await tw.statusCallback(created.sid, 'delivered'), 200);
    const events = await until(msg.id, 'message.delivered');
    assert.deepEqual(events.map((e) => e.type), ['message.queued', 'message.sending', 'message.sent', 'message.delivered']);
  });

  test('an MMS carries every media URL; a forged callback is refused; undelivered names the Twilio error', async () => {
    const media = ['https://127.0.0.1/m/a.jpg', 'https://127.0.0.1/m/b.png'];
    const msg = await send({ to: '+447700900502', channel: 'mms', body: 'two pictures', media_urls: media });
    const created = await createdFor('+447700900502');
    assert.deepEqual(created.form.getAll('MediaUrl'), media);
    await until(msg.id, 'message.sent');
    assert.equal(await tw.statusCallback(created.sid, 'delivered', undefined, { signWith: 'someone-elses-token' }), 401);
    assert.equal((await live().get(`/v1/messages/${msg.id}`)).body.status, 'sent');
    assert.equal(await tw.statusCallback(created.sid, 'undelivered', 30003), 200);
    const last = (await until(msg.id, 'message.undelivered')).at(-1)!.data.object;
    assert.deepEqual([last.error_code, last.error_message], ['unreachable_destination', 'The carrier reported undelivered (error 30003).']);
  });

  test('media URLs follow the webhook URL policy: refused with the field, nothing sent or written', async () => {
    const before = tw.created.length;
    const res = await live().post('/v1/messages', { from: OURS, to: '+447700900503', channel: 'mms', media_urls: ['https://user:secret@127.0.0.1/m/a.jpg'] });
    assert.equal(res.status, 422);
    assert.equal(res.body.code, 'webhook_url_not_allowed');
    assert.equal(res.body.errors[0].field, 'media_urls.0');
    const listed = await live().get('/v1/messages?to=%2B447700900503');
    assert.equal(listed.body.data.length, 0);
    assert.equal(tw.created.length, before);
  });

  test('inbound SMS and MMS: signed, answered with empty TwiML, recorded once even when Twilio retries', async () => {
    const from = '+447700900504';
    const first = await tw.inbound(inboundUrl, { from, to: OURS, body: 'Reply STOP? no, hello!', sid: 'SM00000000000000000000000000000001' });
    assert.equal(first.status, 200);
    assert.match(first.contentType ?? '', /^text\/xml/);
    assert.equal(first.text, '<?xml version="1.0" encoding="UTF-8"?><Response></Response>');
    assert.equal((await tw.inbound(inboundUrl, { from, to: OURS, body: 'Reply STOP? no, hello!', sid: 'SM00000000000000000000000000000001' })).status, 200);
    await tw.inbound(inboundUrl, { from, to: OURS, body: 'and a photo', media: ['https://api.twilio.com/2010-04-01/Accounts/x/Messages/y/Media/z'] });
    await hooks.waitFor((evs) => evs.filter((e) => e.type === 'message.received' && e.data.object.from === from).length >= 2, 20_000);
    await new Promise((r) => setTimeout(r, 300));
    const got = hooks.events().filter((e) => e.type === 'message.received' && e.data.object.from === from).map((e) => e.data.object);
    assert.deepEqual(got.map((m) => [m.channel, m.body, m.media_urls]).sort(), [
      ['mms', 'and a photo', ['https://api.twilio.com/2010-04-01/Accounts/x/Messages/y/Media/z']],
      ['sms', 'Reply STOP? no, hello!', []],
    ]);
  });

  test('a 429 is retried; a permanent Twilio error fails the message with its code', async () => {
    tw.failNext(1, { status: 429, code: 20429, message: 'Too Many Requests' });
    const limited = await send({ to: '+447700900505', body: 'eventually' });
    await until(limited.id, 'message.sent');
    assert.equal(tw.created.filter((c) => c.form.get('To') === '+447700900505').length, 1);

    tw.refuse.set('+447700900506', { status: 400, code: 21610, message: 'Attempt to send to unsubscribed recipient' });
    const refused = await send({ to: '+447700900506', body: 'no' });
    const events = await until(refused.id, 'message.failed');
    assert.deepEqual(events.map((e) => e.type), ['message.queued', 'message.failed']);
    const failed = events.at(-1)!.data.object;
    assert.deepEqual([failed.error_code, failed.error_message, failed.failure.carrier_code],
      ['carrier_rejected', 'Twilio refused the message (400 error 21610: Attempt to send to unsubscribed recipient).', '21610']);
  });

  test('a message waiting queued while Twilio answers 429 can be canceled; its retry then sends nothing', async () => {
    tw.failNext(3, { status: 429, code: 20429, message: 'Too Many Requests' });
    const waiting = await send({ to: '+447700900507', body: 'forget it' });
    let shown = waiting;
    for (let i = 0; i < 200 && shown.status_reason === null; i++) {
      await new Promise((r) => setTimeout(r, 50));
      shown = (await live().get(`/v1/messages/${waiting.id}`)).body;
    }
    assert.equal(shown.status, 'queued');
    assert.match(shown.status_reason, /could not take the message yet .*20429.*; retrying\.$/);
    const canceled = await live().post(`/v1/messages/${waiting.id}/cancel`);
    assert.equal(canceled.status, 200, JSON.stringify(canceled.body));
    assert.equal(canceled.body.status, 'canceled');

    // The send job retries with backoff, finds the message canceled and ends (finished jobs leave the table).
    const db = t.server.built.platform.database.db;
    for (let i = 0; i < 300 && (await db.selectFrom('jobs').select('id').where('kind', '=', 'http_sms.send').execute()).length > 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal((await db.selectFrom('jobs').select('id').where('kind', '=', 'http_sms.send').execute()).length, 0);
    assert.equal(tw.created.filter((c) => c.form.get('To') === '+447700900507').length, 0);
    // The webhook of message.canceled is delivered by its own job: wait for it, not just for the send job's end.
    assert.deepEqual((await until(waiting.id, 'message.canceled')).map((e) => e.type), ['message.queued', 'message.canceled']);
    tw.failNext(0, { status: 429, code: 20429, message: 'Too Many Requests' });
  });

  test('carriers check fetches the account with the credentials', async () => {
    const config = { account_sid: SID, auth_token: TOKEN, api_base_url: tw.baseUrl } as HttpSmsConfig;
    assert.deepEqual(await probeTwilio(config, 5000), { ok: true, detail: 'account "Test Account" is active' });
    assert.deepEqual(await probeTwilio({ ...config, auth_token: 'wrong' }, 5000), { ok: false, detail: '401 from Twilio error 20003: Authenticate' });
  });
});
