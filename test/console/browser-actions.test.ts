// Console actions in a real browser against a real server: send a test event to a failing
// endpoint, watch it dead-letter, replay it once the endpoint recovers; create a key and copy
// its secret once; revoke a key from one session and see the session opened with it signed
// out; a form whose CSRF token was tampered with is refused. Screenshots in test-output/console/.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { startTestServer, type CreatedAccount, type TestServer } from '../helpers/server.ts';
import { until } from '../helpers/until.ts';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { launchBrowser, screenshot, signIn, type ConsoleBrowser } from './browser.ts';
import { XSS, XSS_MARKERS } from './xss.ts';

describe('console actions in a browser', () => {
  let t: TestServer;
  let acct: CreatedAccount;
  let browser: ConsoleBrowser;
  let page: Page;
  let receiver: WebhookReceiver;
  const dialogs: string[] = [];
  const consoleErrors: string[] = [];

  before(async () => {
    t = await startTestServer();
    acct = await t.createAccount('scale');
    receiver = await startReceiver();
    browser = await launchBrowser();
    page = await browser.newPage();
    page.setDefaultTimeout(30_000); // a bound, not a latency check: the console's server runs in this nice-19 process
    // Confirmation prompts (data-confirm) are accepted; any other dialog would be injected script.
    page.on('dialog', (d) => {
      if (d.type() === 'confirm') return void d.accept();
      dialogs.push(d.message());
      void d.dismiss();
    });
    page.on('pageerror', (e) => consoleErrors.push(e.message));
    page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
    await signIn(page, t.url, acct.keys.sandbox);
  });
  after(async () => {
    await browser?.close();
    await receiver?.close();
    await t?.close();
  });

  async function deliveryStatus(webhookId: string): Promise<string | undefined> {
    const res = await t.as(acct.keys.sandbox).get(`/v1/webhooks/${webhookId}/deliveries`);
    return res.body.data?.[0]?.status;
  }

  test('send a test event to a failing endpoint, see it dead-lettered with each attempt, replay it', async () => {
    receiver.respond = () => ({ status: 500 });
    const created = await t.as(acct.keys.sandbox).post('/v1/webhooks', { url: receiver.url, events: ['webhook.test'], description: XSS.name });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    receiver.secrets.push(created.body.secret);
    const id = created.body.id as string;

    await page.goto(`${t.url}/console/webhooks`);
    assert.ok((await page.locator('[data-testid=endpoint-row]').textContent())!.includes(XSS.name), 'the description is text');
    await page.locator(`a[href="/console/webhooks/${id}"]`).click();
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await page.waitForURL(/sent=1/);
    await until('the delivery to be dead-lettered', async () => (await deliveryStatus(id)) === 'dead', { timeoutMs: 30_000 });

    await page.reload();
    const attempts = page.locator('[data-testid=attempt]');
    assert.equal(await attempts.count(), 4, 'the first try and three retries');
    assert.ok((await attempts.first().textContent())!.includes('500'));
    assert.ok((await attempts.first().textContent())!.includes('nope'), "the receiver's response body");
    assert.ok((await page.locator('[data-testid=delivery] details').textContent())!.includes('webhook.test'), 'the request body');
    await screenshot(page, 'webhook');

    receiver.respond = () => ({ status: 200 });
    await page.goto(`${t.url}/console/webhooks/dead-letters`);
    assert.equal(await page.locator('[data-testid=dead-letter]').count(), 1);
    await screenshot(page, 'dead-letters');
    await page.getByRole('button', { name: 'Replay' }).click();
    await page.waitForURL(/replayed=/);
    await receiver.waitForEvent('webhook.test');
    await until('the replayed delivery to succeed', async () => (await deliveryStatus(id)) === 'succeeded', { timeoutMs: 30_000 });
    await page.reload();
    assert.equal(await page.locator('[data-testid=dead-letter]').count(), 0, 'no dead letters left');
    assert.deepEqual(dialogs, []);
    for (const marker of XSS_MARKERS) assert.equal(await page.locator(marker).count(), 0);
  });

  test('rotating a signing secret shows the new secret once, and deliveries are signed with it', async () => {
    const list = await t.as(acct.keys.sandbox).get('/v1/webhooks');
    const id = list.body.data[0].id as string;
    await page.goto(`${t.url}/console/webhooks/${id}`);
    await page.getByRole('button', { name: 'Rotate the signing secret' }).click();
    const secret = (await page.locator('[data-testid=secret-value]').textContent())!.trim();
    assert.match(secret, /^whsec_/);
    receiver.secrets.splice(0, receiver.secrets.length, secret);
    await page.goto(`${t.url}/console/webhooks/${id}`);
    assert.ok(!(await page.content()).includes(secret), 'not shown again');
    const before = receiver.deliveries.length;
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await receiver.waitFor(() => receiver.deliveries.length > before);
    assert.ok(receiver.deliveries.at(-1)!.verifiedWith.includes(0), 'signed with the new secret');
  });

  test('create a key (secret shown once), sign in with it elsewhere, revoke it: that session is signed out', async () => {
    await page.goto(`${t.url}/console/keys`);
    await page.fill('input[name=name]', XSS.name);
    await page.check('input[name="scope:calls:read"]');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.locator('[data-testid=secret-value]').textContent())!.trim();
    assert.match(secret, /^sb_test_/);
    await screenshot(page, 'keys-created');

    const rotated = page.locator('[data-testid=key-row]', { hasText: secret.slice(-4) });
    await rotated.getByRole('button', { name: 'Rotate' }).click();
    // The page still shows the created key's secret until the POST's answer replaces it.
    const replacement = (await page.locator('[data-testid=secret-once]', { hasText: 'replacement' }).locator('[data-testid=secret-value]').textContent())!.trim();
    assert.notEqual(replacement, secret);
    const old = await t.request('GET', '/v1/calls', { key: secret });
    assert.equal(old.status, 200, 'the rotated key keeps working during its grace period');
    assert.equal((await t.request('GET', '/v1/calls', { key: replacement })).status, 200);

    const other = await browser.newPage();
    await signIn(other, t.url, secret);
    assert.equal(await other.locator('nav.main a[href="/console/keys"]').count(), 0, 'a calls:read key sees no keys page');
    assert.equal((await other.goto(`${t.url}/console/keys`))!.status(), 403);

    await page.goto(`${t.url}/console/keys`);
    assert.ok(!(await page.content()).includes(secret), 'the secret is not shown again');
    const row = page.locator('[data-testid=key-row]', { hasText: secret.slice(-4) });
    assert.ok((await row.textContent())!.includes('active'), 'still active until its grace period ends');
    await row.getByRole('button', { name: 'Revoke' }).click();
    await page.locator('[role=status]', { hasText: 'revoked' }).waitFor(); // the page answering the POST

    await other.goto(`${t.url}/console/calls`);
    assert.equal(other.url(), `${t.url}/console/sign-in`, 'the revoked key\'s session was signed out');
    await other.context().close();
    assert.deepEqual(dialogs, []);
    for (const marker of XSS_MARKERS) assert.equal(await page.locator(marker).count(), 0);
  });

  test('a form whose CSRF token was changed in the page is refused and does nothing', async () => {
    const created = await t.as(acct.keys.sandbox).post('/v1/keys', { name: 'csrf target', scopes: ['calls:read'] });
    await page.goto(`${t.url}/console/keys`);
    const row = page.locator(`[data-key-id="${created.body.id}"]`);
    await row.locator('form[action$="/revoke"] input[name=_csrf]').evaluate((input: HTMLInputElement) => { input.value = 'forged'; });
    const [response] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/revoke')), row.getByRole('button', { name: 'Revoke' }).click()]);
    assert.equal(response.status(), 403);
    await screenshot(page, 'csrf-refused');
    const key = await t.as(acct.keys.sandbox).get(`/v1/keys/${created.body.id}`);
    assert.equal(key.body.status, 'active', 'the key was not revoked');
  });

  test("redacting a recording's PII from its call page removes it from the transcript", async () => {
    const placed = await t.as(acct.keys.sandbox).post('/v1/calls', { from: acct.numbers.sandbox[0], to: '+15005550006', record: true });
    assert.equal(placed.status, 200, JSON.stringify(placed.body));
    const callId = placed.body.id as string;
    await until('the recording to be ready', async () => {
      const call = await t.as(acct.keys.sandbox).get(`/v1/calls/${callId}`);
      const id = call.body.recordings?.[0];
      return id !== undefined && (await t.as(acct.keys.sandbox).get(`/v1/recordings/${id}`)).body.status === 'ready';
    }, { timeoutMs: 30_000 });
    await page.goto(`${t.url}/console/calls/${callId}`);
    const before = (await page.locator('[data-testid=transcript]').textContent())!;
    assert.match(before, /\d{4}/, 'the scripted dialogue has digits to redact');
    await page.getByRole('button', { name: 'Redact PII' }).click();
    await page.waitForURL(`${t.url}/console/calls/${callId}`);
    const recordingId = (await t.as(acct.keys.sandbox).get(`/v1/calls/${callId}`)).body.recordings[0];
    const api = await t.as(acct.keys.sandbox).get(`/v1/recordings/${recordingId}`);
    assert.equal(api.body.redacted, true);
    const after = (await page.locator('[data-testid=transcript]').textContent())!;
    assert.notEqual(after, before);
    assert.equal(after, api.body.transcript.segments.map((s: { start: number; speaker: string; text: string }) => `${s.start.toFixed(1)} s · ${s.speaker} ${s.text}`).join(''), 'the page shows the redacted transcript');
    assert.equal(await page.getByRole('button', { name: 'Redact PII' }).count(), 0, 'once redacted, no button');
    await screenshot(page, 'call-redacted');
  });

  test('a queued message is canceled from its page; its status history shows it', async () => {
    // The sandbox holds messages to this number queued (a congested network).
    const sent = await t.as(acct.keys.sandbox).post('/v1/messages', { from: acct.numbers.sandbox[0], to: '+15005550011', body: 'never mind' });
    assert.equal(sent.body.status, 'queued', JSON.stringify(sent.body));
    await page.goto(`${t.url}/console/messages/${sent.body.id}`);
    await page.getByRole('button', { name: 'Cancel message' }).click();
    await page.locator('[data-testid=message-status]', { hasText: 'canceled' }).waitFor(); // the page after the POST's redirect
    assert.ok((await page.locator('main').textContent())!.includes('message.canceled'));
    assert.equal((await t.as(acct.keys.sandbox).get(`/v1/messages/${sent.body.id}`)).body.status, 'canceled');
    assert.equal(await page.getByRole('button', { name: 'Cancel message' }).count(), 0);
    await screenshot(page, 'message-canceled');
  });

  test('no page logged a script error, a failed load or a policy violation', () => {
    // The CSRF test's 403 is the one expected failed load.
    assert.deepEqual(consoleErrors.filter((e) => !/status of 403/.test(e)), []);
  });
});
