// The console in a real browser (Debian's chromium through playwright-core) against a real
// server: sign in, see a sandbox call placed through the API appear, open its recording, read a
// message, and every user-controlled field (names, bodies, metadata, transcripts) rendered as
// inert text. Screenshots of each page land in test-output/console/.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { startTestServer, type CreatedAccount, type TestServer } from '../helpers/server.ts';
import { launchBrowser, screenshot, signIn, type ConsoleBrowser } from './browser.ts';
import { XSS, XSS_MARKERS } from './xss.ts';

describe('console in a browser', () => {
  let t: TestServer;
  let acct: CreatedAccount;
  let browser: ConsoleBrowser;
  let page: Page;
  const dialogs: string[] = [];
  /** Script errors and refusals (a Content-Security-Policy violation is logged as an error). */
  const consoleErrors: string[] = [];

  before(async () => {
    t = await startTestServer();
    acct = await t.createAccount('scale', XSS.name);
    browser = await launchBrowser();
    page = await browser.newPage();
    page.setDefaultTimeout(15_000); // a missing element fails in 15 s, not playwright's 30
    page.on('dialog', (d) => { dialogs.push(d.message()); void d.dismiss(); });
    page.on('pageerror', (e) => consoleErrors.push(e.message));
    page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  async function assertInert(): Promise<void> {
    for (const marker of XSS_MARKERS) assert.equal(await page.locator(marker).count(), 0, `${marker} became an element`);
    assert.deepEqual(dialogs, [], 'no injected script ran');
    assert.deepEqual(consoleErrors, [], 'no script error, failed load or policy violation');
  }

  async function recordingOf(callId: string): Promise<string> {
    for (let i = 0; i < 300; i++) {
      const call = await t.as(acct.keys.sandbox).get(`/v1/calls/${callId}`);
      const id = call.body.recordings?.[0];
      if (id && call.body.status === 'completed') {
        const rec = await t.as(acct.keys.sandbox).get(`/v1/recordings/${id}`);
        if (rec.body.status === 'ready') return id;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`call ${callId}'s recording did not become ready`);
  }

  test('sign in with a sandbox key: the overview shows the account, the sandbox banner and the plan', async () => {
    await signIn(page, t.url, acct.keys.sandbox);
    assert.equal(await page.locator('[data-testid=sandbox-banner]').count(), 1);
    assert.equal((await page.locator('[data-testid=plan-name] .figure').textContent())?.trim(), 'scale');
    assert.ok((await page.locator('header.top').textContent())!.includes(XSS.name), 'the account name is shown as text');
    assert.ok(!(await page.content()).includes(acct.keys.sandbox), 'the key is not in the page');
    await assertInert();
    await screenshot(page, 'overview');

    const phone = await browser.newPage({ width: 390, height: 844 });
    await signIn(phone, t.url, acct.keys.sandbox);
    const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the overview fits a phone's width (overflows by ${overflow} px)`);
    await screenshot(phone, 'overview-phone');
    await phone.context().close();
  });

  test('a sandbox call placed through the API appears in the open calls list without a reload', async () => {
    await page.goto(`${t.url}/console/calls`);
    const placed = await t.as(acct.keys.sandbox).post('/v1/calls', { from: acct.numbers.sandbox[0], to: '+14155550123' });
    assert.equal(placed.status, 200, JSON.stringify(placed.body));
    const loads: string[] = [];
    const onLoad = () => loads.push(page.url());
    page.on('load', onLoad);
    await page.locator(`a[href="/console/calls/${placed.body.id}"]`).waitFor(); // htmx refreshes the list every few seconds
    page.off('load', onLoad);
    assert.deepEqual(loads, [], 'the page was not reloaded');
    await screenshot(page, 'calls-live');
  });

  test('a sandbox call placed through the API has a page with its timeline, flow log and recording with transcript', async () => {
    const placed = await t.as(acct.keys.sandbox).post('/v1/calls', {
      from: acct.numbers.sandbox[0], to: '+14155550199', record: true, metadata: { note: XSS.metadata },
      flow: [{ say: { text: XSS.say } }, { hangup: {} }],
    });
    assert.equal(placed.status, 200, JSON.stringify(placed.body));
    const callId = placed.body.id as string;
    const recordingId = await recordingOf(callId);

    await page.goto(`${t.url}/console/calls`);
    await page.locator(`a[href="/console/calls/${callId}"]`).click();
    await page.waitForURL(`${t.url}/console/calls/${callId}`);
    const timeline = await page.locator('[data-testid=timeline-event]').allTextContents();
    assert.ok(timeline.some((e) => e.includes('call.completed')), timeline.join(', '));
    assert.ok((await page.locator('[data-testid=call-metadata]').textContent())!.includes(JSON.stringify(XSS.metadata)));
    assert.ok((await page.locator('[data-testid=transcript]').textContent())!.includes(XSS.say), 'the transcript shows the markup said as text');

    const player = page.locator('[data-testid=recording-player]');
    assert.equal(await player.getAttribute('src'), `/console/recordings/${recordingId}/media`);
    const media = await page.evaluate(async (src) => {
      const res = await fetch(src);
      return { status: res.status, type: res.headers.get('content-type'), bytes: (await res.arrayBuffer()).byteLength };
    }, `/console/recordings/${recordingId}/media`);
    assert.equal(media.status, 200);
    assert.equal(media.type, 'audio/wav');
    assert.ok(media.bytes > 44, 'a WAV with audio after its header');
    await assertInert();
    await screenshot(page, 'call');

    await page.goto(`${t.url}/console/calls?direction=outbound&status=completed`);
    assert.equal(await page.locator(`a[href="/console/calls/${callId}"]`).count(), 1);
    await page.goto(`${t.url}/console/calls?direction=inbound`);
    assert.equal(await page.locator(`a[href="/console/calls/${callId}"]`).count(), 0, 'the direction filter leaves it out');
    await screenshot(page, 'calls');
  });

  test('a message with markup in its body and metadata is shown as text, with its status history', async () => {
    const sent = await t.as(acct.keys.sandbox).post('/v1/messages', {
      from: acct.numbers.sandbox[0], to: '+14155550100', body: XSS.body, metadata: { note: XSS.metadata },
    });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    await page.goto(`${t.url}/console/messages?number=${encodeURIComponent('+14155550100')}`);
    await page.locator(`a[href="/console/messages/${sent.body.id}"]`).click();
    await page.waitForURL(`${t.url}/console/messages/${sent.body.id}`);
    assert.equal(await page.locator('[data-testid=message-body]').textContent(), XSS.body);
    assert.ok((await page.locator('[data-testid=message-metadata]').textContent())!.includes(JSON.stringify(XSS.metadata)));
    await assertInert();
    await screenshot(page, 'message');
  });

  test('the debugger shows a problem the API answered and a call the carrier failed', async () => {
    const refused = await t.as(acct.keys.sandbox).get('/v1/recordings/rec_01jd8x0v6kf5b9w3t2q1r0p9n8');
    assert.equal(refused.status, 404);
    const failed = await t.as(acct.keys.sandbox).post('/v1/calls', { from: acct.numbers.sandbox[0], to: '+15005550003' });
    for (let i = 0; i < 300 && (await t.as(acct.keys.sandbox).get(`/v1/calls/${failed.body.id}`)).body.status !== 'failed'; i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    // The problem is recorded once its response has gone: reload until it is listed.
    const row = page.locator('[data-testid=problem-row]', { hasText: refused.headers.get('x-request-id')! });
    await page.goto(`${t.url}/console/debugger`);
    for (let i = 0; i < 50 && (await row.count()) === 0; i++) await page.reload();
    assert.ok((await row.textContent())!.includes('not_found'));
    assert.ok((await page.locator('[data-testid=failed-call]').textContent())!.includes(failed.body.id));
    await assertInert();
    await screenshot(page, 'debugger');
  });

  test('numbers, AI agents and analytics charts (drawn by uPlot from the analytics service)', async () => {
    const agent = await t.as(acct.keys.sandbox).post('/v1/ai/agents', { name: XSS.name });
    assert.equal(agent.status, 200, JSON.stringify(agent.body));
    await page.goto(`${t.url}/console/numbers`);
    assert.ok((await page.locator('[data-testid=number-row]').allTextContents()).some((r) => r.includes(acct.numbers.sandbox[0]!)));
    await screenshot(page, 'numbers');

    await page.goto(`${t.url}/console/ai`);
    assert.ok((await page.locator('[data-testid=agent-row]').textContent())!.includes(XSS.name));
    await screenshot(page, 'ai');

    await page.goto(`${t.url}/console/analytics`);
    await page.locator('[data-testid=chart-calls] .uplot').waitFor();
    const chart = JSON.parse((await page.locator('[data-testid=chart-calls]').getAttribute('data-chart'))!);
    const attempted = chart.series.find((s: { label: string }) => s.label === 'attempted').values.reduce((a: number, b: number) => a + b, 0);
    const api = await t.as(acct.keys.sandbox).get('/v1/analytics/calls?interval=day');
    assert.equal(attempted, api.body.totals.attempted, 'the chart plots the figures the API answers');
    assert.ok(attempted >= 3, 'the calls placed by this file');
    await assertInert();
    await screenshot(page, 'analytics');
  });
});
