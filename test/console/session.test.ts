// The console's session and its security properties, over plain HTTP against a real server:
// cookie attributes, the key kept out of URLs and pages, CSRF on every form, scopes deciding
// what is shown, revocation ending sessions, sign-out, brute-force limiting, and pages kept
// out of the OpenAPI document.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type CreatedAccount, type TestServer } from '../helpers/server.ts';
import { ConsoleClient } from './http-client.ts';
import { MemoryRateLimiter, type RateLimiter } from '../../src/platform/rate-limiter.ts';

describe('console sessions', () => {
  let t: TestServer;
  let acct: CreatedAccount;

  before(async () => {
    t = await startTestServer();
    acct = await t.createAccount('scale', 'Session Co');
  });
  after(async () => t?.close());

  test('signing in sets an HttpOnly, SameSite=Strict session cookie; the key is in no URL or page', async () => {
    const c = new ConsoleClient(t.url);
    const res = await c.signIn(acct.keys.sandbox);
    assert.equal(res.status, 303);
    assert.equal(res.headers.get('location'), '/console');
    const session = res.headers.getSetCookie().find((line) => line.startsWith('sb_console='));
    assert.ok(session, 'a session cookie was set');
    assert.match(session, /HttpOnly/);
    assert.match(session, /SameSite=Strict/);
    assert.match(session, /Path=\/console/);
    assert.match(session, /Max-Age=\d+/);
    assert.doesNotMatch(session, /Secure/, 'plain HTTP: no Secure attribute, or the browser would drop it');
    assert.ok(!session.includes(acct.keys.sandbox));

    const overview = await c.get('/console');
    assert.equal(overview.status, 200);
    assert.match(overview.text, /Session Co/);
    assert.match(overview.text, /data-testid="sandbox-banner"/);
    assert.ok(!overview.text.includes(acct.keys.sandbox), 'the key never appears in a page');
    assert.match(overview.headers.get('content-security-policy') ?? '', /script-src 'self'/);
  });

  test('the cookie is Secure when the request came over HTTPS (behind a trusted proxy)', async () => {
    const proxied = await startTestServer({ SWITCHBOARD_TRUST_PROXY: 'true' });
    try {
      const account = await proxied.createAccount('scale');
      const form = await fetch(`${proxied.url}/console/sign-in`, { headers: { 'x-forwarded-proto': 'https' } });
      const signInCookie = form.headers.getSetCookie()[0]!;
      assert.match(signInCookie, /; Secure/);
      const token = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1]!;
      const res = await fetch(`${proxied.url}/console/sign-in`, {
        method: 'POST', redirect: 'manual',
        headers: { 'x-forwarded-proto': 'https', 'content-type': 'application/x-www-form-urlencoded', cookie: signInCookie.split(';')[0]! },
        body: new URLSearchParams({ _csrf: token, key: account.keys.sandbox }).toString(),
      });
      assert.equal(res.status, 303);
      assert.match(res.headers.getSetCookie().find((l) => l.startsWith('sb_console='))!, /; Secure/);
    } finally {
      await proxied.close();
    }
  });

  test('a wrong key is refused with a page that does not echo it', async () => {
    const c = new ConsoleClient(t.url);
    const wrong = `sb_test_${'x'.repeat(43)}`;
    const res = await c.signIn(wrong);
    assert.equal(res.status, 401);
    assert.match(res.text, /No API key matches/);
    assert.ok(!res.text.includes(wrong));
    assert.equal((await c.get('/console')).status, 303, 'no session was opened');
  });

  test('CSRF: a sign-in or a form post without the right token is refused and does nothing', async () => {
    const stranger = new ConsoleClient(t.url);
    const forged = await stranger.post('/console/sign-in', { _csrf: 'guess', key: acct.keys.sandbox });
    assert.equal(forged.status, 403);
    assert.equal((await stranger.get('/console')).status, 303);

    const c = new ConsoleClient(t.url);
    await c.signIn(acct.keys.sandbox);
    const refused = await c.post('/console/sign-out', { _csrf: 'not-the-token' });
    assert.equal(refused.status, 403);
    assert.equal((await c.get('/console')).status, 200, 'still signed in: the forged sign-out did nothing');
    const missing = await c.post('/console/sign-out', {});
    assert.equal(missing.status, 403);
  });

  test('sign-out ends the session on the server: the old cookie no longer works', async () => {
    const c = new ConsoleClient(t.url);
    await c.signIn(acct.keys.sandbox);
    const stolen = c.cookies.get('sb_console')!;
    const page = await c.get('/console');
    const out = await c.post('/console/sign-out', { _csrf: ConsoleClient.csrfOf(page) });
    assert.equal(out.status, 303);
    assert.equal(out.headers.get('location'), '/console/sign-in');
    const replayed = await fetch(`${t.url}/console`, { headers: { cookie: `sb_console=${stolen}` }, redirect: 'manual' });
    assert.equal(replayed.status, 303);
  });

  test('revoking the key through the API ends the sessions opened with it', async () => {
    const created = await t.as(acct.keys.sandbox).post('/v1/keys', { name: 'to revoke', scopes: ['calls:read'] });
    assert.equal(created.status, 200);
    const c = new ConsoleClient(t.url);
    assert.equal((await c.signIn(created.body.secret)).status, 303);
    assert.equal((await c.get('/console')).status, 200);
    assert.equal((await t.as(acct.keys.sandbox).post(`/v1/keys/${created.body.id}/revoke`)).status, 200);
    const after = await c.get('/console');
    assert.equal(after.status, 303);
    assert.equal(after.headers.get('location'), '/console/sign-in');
    assert.match((await c.signIn(created.body.secret)).text, /revoked/);
  });

  test("the key's scopes decide what the navigation shows and which pages open", async () => {
    const narrow = await t.as(acct.keys.sandbox).post('/v1/keys', { name: 'calls only', scopes: ['calls:read'] });
    const c = new ConsoleClient(t.url);
    await c.signIn(narrow.body.secret);
    const overview = await c.get('/console');
    assert.match(overview.text, /href="\/console\/calls"/);
    assert.doesNotMatch(overview.text, /href="\/console\/messages"/);
    assert.doesNotMatch(overview.text, /href="\/console\/keys"/);
    assert.match(overview.text, /Calls today/);
    assert.doesNotMatch(overview.text, /Messages today/);
  });

  test('sign-in attempts spend from the address bucket the API uses, and are refused once it is empty', async () => {
    // The real in-memory limiter with time held still, so no token comes back during the test.
    const inner = new MemoryRateLimiter();
    const stillTime: RateLimiter = { consume: (k, p) => inner.consume(k, p, 0), peek: (k, p) => inner.peek(k, p, 0) };
    const limited = await startTestServer({}, { limiter: stillTime });
    try {
      const account = await limited.createAccount('scale');
      const c = new ConsoleClient(limited.url);
      const wrong = `sb_test_${'y'.repeat(43)}`;
      const statuses: number[] = [];
      for (let i = 0; i < 61; i++) statuses.push((await c.signIn(wrong)).status);
      assert.deepEqual([...new Set(statuses.slice(0, 60))], [401]);
      assert.equal(statuses[60], 429, 'the 61st attempt in a minute is refused');
      const right = await c.signIn(account.keys.sandbox);
      assert.equal(right.status, 429, 'even the right key: a refusal says nothing about the key');
      assert.ok(Number(right.headers.get('retry-after')) >= 1);
      const api = await limited.request('GET', '/v1/calls', { key: wrong });
      assert.equal(api.status, 429, 'and the API refuses the same address too: one bucket');
    } finally {
      await limited.close();
    }
  });

  test('the debugger lists the problems the API answered to this account, and only those', async () => {
    const other = await t.createAccount('scale');
    const missing = await t.as(acct.keys.sandbox).get('/v1/calls/call_01jd8x0v6kf5b9w3t2q1r0p9n8');
    assert.equal(missing.status, 404);
    const invalid = await t.as(acct.keys.sandbox).post('/v1/calls', { to: 'not a number', from: acct.numbers.sandbox[0] });
    assert.equal(invalid.status, 400);
    const elsewhere = await t.as(other.keys.sandbox).get('/v1/messages/msg_01jd8x0v6kf5b9w3t2q1r0p9n8');
    assert.equal(elsewhere.status, 404);

    const c = new ConsoleClient(t.url);
    await c.signIn(acct.keys.sandbox);
    let page = await c.get('/console/debugger');
    for (let i = 0; i < 100 && !page.text.includes(invalid.headers.get('x-request-id')!); i++) {
      await new Promise((r) => setTimeout(r, 20)); // the row is written once the response has gone
      page = await c.get('/console/debugger');
    }
    assert.equal(page.status, 200);
    assert.ok(page.text.includes(missing.headers.get('x-request-id')!), 'the 404 with its request id');
    assert.match(page.text, /not_found/);
    assert.match(page.text, /validation_failed/);
    assert.match(page.text, /POST \/v1\/calls/);
    assert.ok(!page.text.includes(elsewhere.headers.get('x-request-id')!), "another account's problem is not listed");
  });

  test('console pages are not in the OpenAPI document', async () => {
    const doc = (await t.request('GET', '/v1/openapi.json')).body;
    assert.deepEqual(Object.keys(doc.paths).filter((p) => !p.startsWith('/v1/')), []);
  });
});
