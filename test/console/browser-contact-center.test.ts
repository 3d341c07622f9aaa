// The console's contact-center and configuration pages in a real browser against a real
// server: the queues live board (callers appear without a reload; workers with their status,
// skills and current call, and who can take a routed queue), a call's page with its
// queue and conference history, the AI pages' knowledge documents and unanswered questions,
// and adding a webhook endpoint from the console (with its CSRF token; without it, refused).
// Every user-controlled field shown here (worker, agent and document names, caller questions,
// endpoint descriptions) stays inert text. Queue and conference names cannot carry markup (the API
// allows letters, digits and . _ - : and spaces only); they are checked to show as sent.
// Screenshots land in test-output/console/.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { startTestServer, type CreatedAccount, type TestServer } from '../helpers/server.ts';
import { subscribeAll } from '../helpers/subscribe.ts';
import type { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { converse, createFixtureAgent } from '../helpers/ai.ts';
import { MAGIC, ORDINARY, eventsOf } from '../voice/voice-helpers.ts';
import { waitForFlowEvent } from '../voice/flow-helpers.ts';
import { launchBrowser, screenshot, signIn, type ConsoleBrowser } from './browser.ts';
import { XSS, XSS_MARKERS } from './xss.ts';

describe('console contact center and configuration in a browser', () => {
  let t: TestServer;
  let acct: CreatedAccount;
  let hooks: WebhookReceiver;
  let browser: ConsoleBrowser;
  let page: Page;
  const dialogs: string[] = [];
  const consoleErrors: string[] = [];
  const api = () => t.as(acct.keys.sandbox);

  before(async () => {
    t = await startTestServer();
    acct = await t.createAccount('scale');
    hooks = await subscribeAll(t, acct.keys.sandbox);
    browser = await launchBrowser();
    page = await browser.newPage();
    page.setDefaultTimeout(30_000); // a bound, not a latency check: the console's server runs in this nice-19 process
    page.on('dialog', (d) => { dialogs.push(d.message()); void d.dismiss(); });
    page.on('pageerror', (e) => consoleErrors.push(e.message));
    page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
    await signIn(page, t.url, acct.keys.sandbox);
  });
  after(async () => {
    await browser?.close();
    await hooks?.close();
    await t?.close();
  });

  async function assertInert(): Promise<void> {
    for (const marker of XSS_MARKERS) assert.equal(await page.locator(marker).count(), 0, `${marker} became an element`);
    assert.deepEqual(dialogs, [], 'no injected script ran');
    assert.deepEqual(consoleErrors, [], 'no script error, failed load or policy violation');
  }

  async function caller(flow: unknown[]): Promise<string> {
    const res = await api().post('/v1/calls', { from: acct.numbers.sandbox[0], to: MAGIC.staysUp, flow });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    await waitForFlowEvent(hooks, res.body.id, 'call.queue.joined');
    return res.body.id;
  }

  let queueId = '';
  let taken = '';

  test('the queues board shows callers waiting and the longest wait, and updates without a reload', async () => {
    const queue = await api().post('/v1/queues', { name: 'Front desk 1' });
    assert.equal(queue.status, 200, JSON.stringify(queue.body));
    queueId = queue.body.id;
    taken = await caller([{ enqueue: { queue: 'Front desk 1' } }, { conference: { name: 'standup.1' } }]);

    await page.goto(`${t.url}/console/queues`);
    const card = page.locator(`[data-testid=queue-card][id="${queueId}"]`);
    assert.equal(await card.locator('[data-testid=queue-name]').textContent(), 'Front desk 1');
    assert.equal(await card.locator('[data-testid=queue-waiting]').textContent(), '1');
    assert.match((await card.locator('[data-testid=queue-longest]').textContent())!, /^\d+ s$/);

    const loads: string[] = [];
    const onLoad = () => loads.push(page.url());
    page.on('load', onLoad);
    const second = await caller([{ enqueue: { queue: 'Front desk 1' } }]);
    await card.locator(`a[href="/console/calls/${second}"]`).waitFor(); // htmx swaps the board every few seconds
    page.off('load', onLoad);
    assert.deepEqual(loads, [], 'the page was not reloaded');
    assert.equal(await card.locator('[data-testid=queue-waiting]').textContent(), '2');
    const positions = await card.locator('[data-testid=queue-member]').allTextContents();
    assert.ok(positions[0]!.startsWith('1') && positions[0]!.includes(taken), 'the first caller is next');
    await assertInert();
    await screenshot(page, 'queues-board');
    assert.equal((await api().post(`/v1/calls/${second}/hangup`)).status, 200);
  });

  test("a call's page shows its queue stay and its conference seat", async () => {
    // Taken out to a number that talks and hangs up; the caller's flow then joins a conference, which is ended.
    const dequeued = await api().post(`/v1/queues/${queueId}/members/${taken}/dequeue`, { to: ORDINARY });
    assert.equal(dequeued.status, 200, JSON.stringify(dequeued.body));
    await hooks.waitFor((events) => events.some((e) => e.type === 'conference.participant.joined' && e.data.object.call_id === taken), 20_000);
    const conference = (await api().get('/v1/conferences?name=standup.1')).body.data[0];
    assert.equal((await api().post(`/v1/conferences/${conference.id}/end`)).status, 200);
    await hooks.waitFor((events) => events.some((e) => e.type === 'conference.participant.left' && e.data.object.call_id === taken), 20_000);

    await page.goto(`${t.url}/console/calls/${taken}`);
    const stay = page.locator('[data-testid=queue-stay]');
    assert.equal(await stay.count(), 1);
    assert.equal(await stay.locator('[data-testid=queue-name]').textContent(), 'Front desk 1');
    assert.ok((await stay.textContent())!.includes('bridged'), await stay.textContent() ?? '');
    const seat = page.locator('[data-testid=conference-seat]');
    assert.equal(await seat.locator('[data-testid=conference-name]').textContent(), 'standup.1');
    assert.ok((await seat.textContent())!.includes('conference_ended'), await seat.textContent() ?? '');
    await assertInert();
    await screenshot(page, 'call-contact-center');
  });

  test('the queues board shows the workers: status, skills, current call, who can take a routed queue; a name with markup stays text', async () => {
    const queue = await api().post('/v1/queues', { name: 'Support 1', wait_flow: [{ pause: { seconds: 600 } }], routing: { required_skills: ['support'] } });
    assert.equal(queue.status, 200, JSON.stringify(queue.body));
    const worker = async (body: Record<string, unknown>) => {
      const res = await api().post('/v1/workers', { reach: MAGIC.staysUp, ...body });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body as { id: string };
    };
    const dana = await worker({ name: 'Dana Support', skills: ['support', 'spanish'], status: 'available', wrap_up_seconds: 600 });
    const marked = await worker({ name: XSS.name, skills: ['billing'] });
    // A caller in the routed queue is offered to Dana (the only worker with the skill), who answers.
    const routed = await caller([{ enqueue: { queue: 'Support 1' } }, { hangup: {} }]);
    await hooks.waitFor(() => eventsOf(hooks, dana.id).some((e) => e.type === 'worker.connected'), 20_000);
    const busy = (await api().get(`/v1/workers/${dana.id}`)).body;
    assert.equal(busy.status, 'busy');

    await page.goto(`${t.url}/console/queues`);
    const row = (id: string) => page.locator(`[data-testid=worker-row][id="${id}"]`);
    assert.equal(await row(dana.id).locator('[data-testid=worker-name]').textContent(), 'Dana Support');
    assert.equal(await row(dana.id).locator('[data-testid=worker-status]').textContent(), 'busy');
    assert.equal(await row(dana.id).locator('[data-testid=worker-skills]').textContent(), 'spanish, support');
    assert.equal(await row(dana.id).locator(`[data-testid=worker-call] a[href="/console/calls/${busy.current_call_id}"]`).count(), 1);
    assert.match((await row(dana.id).locator('[data-testid=worker-in-status]').textContent())!, /^\d+ (s|min \d+ s)$/);
    assert.equal(await row(marked.id).locator('[data-testid=worker-name]').textContent(), XSS.name);
    assert.equal(await row(marked.id).locator('[data-testid=worker-status]').textContent(), 'offline');
    const counts = async (scope: string) => Object.fromEntries(await page.locator(`${scope} [data-status]`)
      .evaluateAll((figures) => figures.map((f) => [f.getAttribute('data-status'), f.textContent])));
    assert.deepEqual(await counts('[data-testid=workers-by-status]'), { available: '0', busy: '1', wrap_up: '0', offline: '1' });
    // Only Dana has the queue's skill: the unskilled worker is not counted as able to take it.
    assert.deepEqual(await counts(`[data-testid=queue-card][id="${queue.body.id}"] [data-testid=queue-workers]`), { available: '0', busy: '1', wrap_up: '0', offline: '0' });

    // A status changed through the API shows on the open board at its next refresh.
    assert.equal((await api().patch(`/v1/workers/${marked.id}`, { status: 'available' })).status, 200);
    await page.locator(`[data-testid=worker-row][id="${marked.id}"] [data-testid=worker-status]`, { hasText: 'available' }).waitFor();
    await assertInert();
    await screenshot(page, 'queues-board-workers');
    assert.equal((await api().post(`/v1/calls/${routed}/hangup`)).status, 200);
  });

  test("the AI pages show an agent's knowledge documents and the questions callers asked that it could not answer", async () => {
    const numberId = (await api().get('/v1/numbers')).body.data[0].id;
    const { agent } = await createFixtureAgent(t, acct.keys.sandbox, numberId, { name: XSS.name });
    const pushed = await api().post(`/v1/ai/agents/${agent.id}/knowledge`, { documents: [{ title: XSS.title, content: 'Grooming is not offered.', content_type: 'text/plain' }] });
    assert.equal(pushed.status, 200, JSON.stringify(pushed.body));
    await converse(t, acct.keys.sandbox, hooks, { to: acct.numbers.sandbox[0]!, caller_script: [XSS.question] });
    const figures = await api().get(`/v1/analytics/ai?agent_id=${agent.id}`);
    const asked = figures.body.unanswered_questions.map((q: { question: string }) => q.question);
    assert.ok(asked.length > 0, 'the analytics hold the unanswered question');

    await page.goto(`${t.url}/console/ai`);
    const questions = await page.locator('[data-testid=question-text]').allTextContents();
    assert.ok(questions.some((q) => q.startsWith(asked[0])), `the page lists what the API answers: ${questions.join(' | ')}`);
    await assertInert();
    await screenshot(page, 'ai-unanswered');

    await page.locator(`a[href="/console/ai/agents/${agent.id}"]`).click();
    await page.waitForURL(`${t.url}/console/ai/agents/${agent.id}`);
    assert.equal(await page.locator('[data-testid=agent-name]').textContent(), XSS.name);
    const titles = await page.locator('[data-testid=document-title]').allTextContents();
    assert.ok(titles.some((title) => title.startsWith(XSS.title)), `the markup title shows as text: ${titles.join(' | ')}`);
    const documents = (await api().get(`/v1/ai/agents/${agent.id}/knowledge`)).body.data;
    assert.equal(await page.locator('[data-testid=knowledge-document]').count(), documents.length);
    assert.ok((await page.locator('[data-testid=question-text]').allTextContents()).some((q) => q.startsWith(asked[0])));
    await assertInert();
    await screenshot(page, 'ai-agent');
  });

  test('add a webhook endpoint from the console: its secret is shown once; a form without the CSRF token is refused', async () => {
    await page.goto(`${t.url}/console/webhooks`);
    const form = page.locator('[data-testid=create-endpoint]');
    await form.locator('input[name=url]').fill('http://127.0.0.1:9/console-hooks');
    await form.locator('input[name=events]').fill('call.*, message.delivered');
    await form.locator('input[name=description]').fill(XSS.name);
    await Promise.all([page.waitForLoadState('load'), form.locator('button[type=submit]').click()]);
    const secret = (await page.locator('[data-testid=secret-value]').textContent())!;
    assert.match(secret, /^whsec_/);
    const endpoints = (await api().get('/v1/webhooks')).body.data.filter((e: any) => e.url === 'http://127.0.0.1:9/console-hooks');
    assert.equal(endpoints.length, 1);
    assert.deepEqual([endpoints[0].events, endpoints[0].description], [['call.*', 'message.delivered'], XSS.name]);
    assert.ok((await page.locator('[data-testid=endpoint-row]', { hasText: endpoints[0].id }).textContent())!.includes(XSS.name));
    await assertInert();
    await screenshot(page, 'webhook-created');
    await page.goto(`${t.url}/console/webhooks`);
    assert.equal(await page.locator('[data-testid=secret-value]').count(), 0, 'the secret is not shown again');

    // The same form posted without its token (as another site's page would): refused, nothing added.
    const refused = await page.evaluate(async () => {
      const res = await fetch('/console/webhooks', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'url=http%3A%2F%2F127.0.0.1%3A9%2Fforged' });
      return res.status;
    });
    assert.equal(refused, 403);
    // A URL the policy refuses is a clear problem on the page, not a crash.
    await form.locator('input[name=url]').fill('ftp://127.0.0.1/hooks');
    await Promise.all([page.waitForLoadState('load'), form.locator('button[type=submit]').click()]);
    assert.ok((await page.locator('main').textContent())!.toLowerCase().includes('url'), 'the refusal names the url');
    const after = (await api().get('/v1/webhooks')).body.data.map((e: any) => e.url);
    assert.ok(!after.includes('http://127.0.0.1:9/forged') && !after.includes('ftp://127.0.0.1/hooks'), after.join(', '));
    await screenshot(page, 'webhook-refused');
  });
});
