// Live WhatsApp over the Cloud API shape, against a local server implementing Meta's
// documented Graph message endpoint and webhook (test/helpers/graph-api.ts): sends through the
// HTTP API, statuses and inbound messages through Meta's signed webhook, as a customer sees them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type CreatedAccount, type TestServer } from '../helpers/server.ts';
import { subscribeAll } from '../helpers/subscribe.ts';
import type { ReceivedEvent, WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { startFakeGraph, type FakeGraph } from '../helpers/graph-api.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { probeWhatsApp } from '../../src/carriers/whatsapp/probe.ts';
import type { WhatsAppConfig } from '../../src/carriers/whatsapp/config.ts';

const OURS = '+14155550190';
const SECRETS = { token: 'EAAG-test-token', appSecret: 'meta-app-secret', verify: 'verify-me' };
let t: TestServer;
let graph: FakeGraph;
let acct: CreatedAccount;
let hooks: WebhookReceiver;
let hookUrl: string;

before(async () => {
  graph = await startFakeGraph({ token: SECRETS.token, phoneNumberId: '106540352242922', displayPhoneNumber: OURS.slice(1), appSecret: SECRETS.appSecret });
  Object.assign(process.env, { TEST_WA_TOKEN: SECRETS.token, TEST_WA_APP_SECRET: SECRETS.appSecret, TEST_WA_VERIFY: SECRETS.verify });
  const file = join(mkdtempSync(join(tmpdir(), 'sb-wa-')), 'carriers.yaml');
  writeFileSync(file, [
    'whatsapp:',
    '  - name: wa-main',
    "    phone_number_id: '106540352242922'",
    '    access_token: env:TEST_WA_TOKEN',
    '    app_secret: env:TEST_WA_APP_SECRET',
    '    verify_token: env:TEST_WA_VERIFY',
    `    graph_base_url: ${graph.baseUrl}`,
    '',
  ].join('\n'));
  t = await startTestServer({ SWITCHBOARD_CARRIERS_FILE: file });
  hookUrl = `${t.url}/hooks/carriers/wa-main`;
  acct = await t.createAccount('scale');
  hooks = await subscribeAll(t, acct.keys.live);
  await t.server.built.services.numbers.importNumber(systemClock, {
    accountId: acct.account.id, mode: 'live', phoneNumber: OURS, capabilities: ['sms', 'whatsapp'], type: 'mobile', country: 'US', inventory: false,
  });
});
after(async () => {
  await hooks.close();
  await t.close();
  await graph.close();
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
  const res = await live().post('/v1/messages', { from: OURS, channel: 'whatsapp', ...body });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

/** The wamids the Graph API gave for objects sent to `to`, in order. */
async function wamidsFor(to: string, count: number): Promise<string[]> {
  for (let i = 0; i < 200; i++) {
    const got = graph.accepted.filter((a) => a.body.to === to.replace('+', ''));
    if (got.length >= count) return got.map((a) => a.wamid);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the Graph API did not get ${count} objects for ${to}`);
}

describe('WhatsApp over the Cloud API', () => {
  test("Meta's verification handshake: the challenge with the right verify token, 403 otherwise", async () => {
    const ok = await fetch(`${hookUrl}?hub.mode=subscribe&hub.verify_token=${SECRETS.verify}&hub.challenge=1158201444`);
    assert.equal(ok.status, 200);
    assert.equal(await ok.text(), '1158201444');
    const wrong = await fetch(`${hookUrl}?hub.mode=subscribe&hub.verify_token=nope&hub.challenge=1`);
    assert.equal(wrong.status, 403);
    assert.equal(((await wrong.json()) as { code: string }).code, 'provider_verification_failed');
    const unknown = await fetch(`${t.url}/hooks/carriers/nobody?hub.mode=subscribe&hub.verify_token=${SECRETS.verify}&hub.challenge=1`);
    assert.equal(unknown.status, 404);
  });

  test('a template opens the conversation; Meta statuses make it delivered, then read', async () => {
    const to = '+447700900401';
    const free = await live().post('/v1/messages', { from: OURS, to, channel: 'whatsapp', body: 'hi' });
    assert.equal(free.status, 422);
    assert.equal(free.body.code, 'whatsapp_window_closed');

    const msg = await send({ to, template: { name: 'order_update', language: 'en_US', variables: ['A-17', 'Tuesday'] } });
    const [wamid] = await wamidsFor(to, 1);
    const posted = graph.requests.find((r) => r.body?.to === '447700900401')!;
    assert.equal(posted.authorization, `Bearer ${SECRETS.token}`);
    assert.equal(posted.path, '/v21.0/106540352242922/messages');
    assert.deepEqual(posted.body, {
      messaging_product: 'whatsapp', recipient_type: 'individual', to: '447700900401', type: 'template',
      template: { name: 'order_update', language: { code: 'en_US' }, components: [{ type: 'body', parameters: [{ type: 'text', text: 'A-17' }, { type: 'text', text: 'Tuesday' }] }] },
    });
    await until(msg.id, 'message.sent');
    const sentOnce = await graph.notify(hookUrl, graph.statusNotification([{ wamid: wamid!, status: 'sent', recipient: '447700900401' }]));
    assert.equal(sentOnce.status, 200);
    await graph.notify(hookUrl, graph.statusNotification([{ wamid: wamid!, status: 'delivered', recipient: '447700900401' }]));
    await graph.notify(hookUrl, graph.statusNotification([{ wamid: wamid!, status: 'read', recipient: '447700900401' }]));
    const events = await until(msg.id, 'message.read');
    assert.deepEqual(events.map((e) => e.type), ['message.queued', 'message.sending', 'message.sent', 'message.delivered', 'message.read']);
    const shown = await live().get(`/v1/messages/${msg.id}`);
    assert.equal(shown.body.status, 'read');
    assert.ok(shown.body.read_at);
  });

  test('an inbound message arrives once (a redelivery is not a second one), opens the window, and a failed status fails the reply', async () => {
    const from = '+447700900402';
    const notification = graph.messageNotification({ from: from.slice(1), text: 'Is my order ready? 🙂', wamid: 'wamid.inbound-1' });
    const forged = await graph.notify(hookUrl, notification, { attempts: 1, signWith: 'not-the-app-secret' });
    assert.equal(forged.status, 401);
    assert.equal((await graph.notify(hookUrl, notification)).status, 200);
    assert.equal((await graph.notify(hookUrl, notification)).status, 200); // Meta redelivers
    const received = await hooks.waitFor((evs) => evs.some((e) => e.type === 'message.received' && e.data.object.from === from), 20_000);
    await new Promise((r) => setTimeout(r, 300));
    const inbound = hooks.events().filter((e) => e.type === 'message.received' && e.data.object.from === from);
    assert.equal(inbound.length, 1, `${received.length} events, ${inbound.length} received`);
    assert.deepEqual([inbound[0]!.data.object.body, inbound[0]!.data.object.to, inbound[0]!.data.object.channel], ['Is my order ready? 🙂', OURS, 'whatsapp']);
    const listed = await live().get(`/v1/messages?direction=inbound&from=${encodeURIComponent(from)}`);
    assert.equal(listed.body.data.length, 1);

    const reply = await send({ to: from, body: 'Yes, ready for pickup.' });
    const [wamid] = await wamidsFor(from, 1);
    assert.deepEqual(graph.accepted.find((a) => a.wamid === wamid)!.body.text, { body: 'Yes, ready for pickup.', preview_url: false });
    await until(reply.id, 'message.sent');
    await graph.notify(hookUrl, graph.statusNotification([{ wamid: wamid!, status: 'failed', recipient: from.slice(1), error: { code: 131026, title: 'Message undeliverable' } }]));
    const failed = (await until(reply.id, 'message.failed')).at(-1)!.data.object;
    assert.equal(failed.error_code, 'carrier_rejected');
    assert.equal(failed.error_message, 'The carrier reported failed (error 131026: Message undeliverable).');
  });

  test("the 24-hour window runs from when the customer sent the message, not when Meta's webhook reached us", async () => {
    const from = '+447700900403';
    const sentAt = Math.floor(Date.now() / 1000) - 25 * 3600; // a redelivery of a day-old message
    assert.equal((await graph.notify(hookUrl, graph.messageNotification({ from: from.slice(1), text: 'late', timestamp: sentAt }))).status, 200);
    await hooks.waitFor((evs) => evs.some((e) => e.type === 'message.received' && e.data.object.from === from), 20_000);
    const res = await live().post('/v1/messages', { from: OURS, to: from, channel: 'whatsapp', body: 'too late?' });
    assert.equal(res.status, 422);
    assert.equal(res.body.code, 'whatsapp_window_closed');
    assert.equal(res.body.window_closed_at, new Date((sentAt + 24 * 3600) * 1000).toISOString());
  });

  test('media: one Graph object per URL with the body as the first caption; delivered when both are', async () => {
    const from = '+447700900404';
    await graph.notify(hookUrl, graph.messageNotification({ from: from.slice(1), image: { id: '1479537139650973', caption: 'this one' } }));
    const got = await hooks.waitFor((evs) => evs.some((e) => e.type === 'message.received' && e.data.object.from === from), 20_000);
    const inbound = got.find((e) => e.type === 'message.received' && e.data.object.from === from)!.data.object;
    assert.deepEqual([inbound.body, inbound.media_urls], ['this one', [`${graph.baseUrl}/v21.0/1479537139650973`]]);

    const msg = await send({ to: from, body: 'Your invoice and a photo', media_urls: ['http://127.0.0.1/p/photo.jpg', 'http://127.0.0.1/p/invoice.pdf'] });
    const wamids = await wamidsFor(from, 2);
    const bodies = graph.accepted.filter((a) => wamids.includes(a.wamid)).map((a) => a.body);
    assert.deepEqual(bodies.map((b) => [b.type, b[b.type]]), [
      ['image', { link: 'http://127.0.0.1/p/photo.jpg', caption: 'Your invoice and a photo' }],
      ['document', { link: 'http://127.0.0.1/p/invoice.pdf' }],
    ]);
    await until(msg.id, 'message.sent');
    await graph.notify(hookUrl, graph.statusNotification([{ wamid: wamids[0]!, status: 'delivered', recipient: from.slice(1) }]));
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await live().get(`/v1/messages/${msg.id}`)).body.status, 'sent', 'one object of two delivered is not the message');
    await graph.notify(hookUrl, graph.statusNotification([{ wamid: wamids[1]!, status: 'delivered', recipient: from.slice(1) }]));
    await until(msg.id, 'message.delivered');
  });

  test('a rate limit is retried; a permanent Graph error fails the message with the Graph code', async () => {
    graph.failNext(1, { status: 429, code: 130429, message: '(#130429) Rate limit hit' });
    const limited = await send({ to: '+447700900405', template: { name: 'hello_world', language: 'en_US', variables: [] } });
    await until(limited.id, 'message.sent');
    assert.equal(graph.accepted.filter((a) => a.body.to === '447700900405').length, 1);

    graph.refuse.set('447700900406', { status: 400, code: 131030, message: '(#131030) Recipient phone number not in allowed list' });
    const refused = await send({ to: '+447700900406', template: { name: 'hello_world', language: 'en_US', variables: [] } });
    const events = await until(refused.id, 'message.failed');
    assert.deepEqual(events.map((e) => e.type), ['message.queued', 'message.failed']);
    const failed = events.at(-1)!.data.object;
    assert.equal(failed.error_code, 'carrier_rejected');
    assert.match(failed.error_message, /^WhatsApp refused the message: \(#131030\) \(#131030\) Recipient phone number not in allowed list\.$/);
    assert.equal(failed.failure.carrier_code, '131030');
  });

  test('carriers check reads the phone number object with the token; a wrong token says what the Graph API answered', async () => {
    const config = { phone_number_id: '106540352242922', access_token: SECRETS.token, graph_base_url: graph.baseUrl, api_version: 'v21.0' } as WhatsAppConfig;
    assert.deepEqual(await probeWhatsApp(config, 5000), { ok: true, detail: 'phone number 14155550190 (Test Business)' });
    const wrong = await probeWhatsApp({ ...config, access_token: 'expired' }, 5000);
    assert.deepEqual(wrong, { ok: false, detail: '401 from the Graph API (#190) Invalid OAuth access token - Cannot parse access token' });
  });
});
