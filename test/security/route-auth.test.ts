// Authentication follows the route the router matched, never the URL text (issue 11.1):
// every spelling of a /v1 path that reaches a handler needs a key, on every route.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { startTestServer, type TestServer, type CreatedAccount } from '../helpers/server.ts';
import { generousAnonymousLimiter } from '../helpers/generous-limiter.ts';

let t: TestServer;
let acct: CreatedAccount;
let routes: Array<{ method: string; path: string }>;

before(async () => {
  t = await startTestServer({}, { limiter: generousAnonymousLimiter() });
  acct = await t.createAccount('scale');
  const doc = (await t.request('GET', '/v1/openapi.json')).body;
  routes = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) =>
    Object.keys(ops).filter((m) => ['get', 'post', 'patch', 'delete', 'put'].includes(m))
      .map((m) => ({ method: m.toUpperCase(), path: path.replace(/\{[^}]+\}/g, 'x_1') })));
});
after(() => t.close());

/** A raw request line, exactly as given: fetch would normalise the spellings under test. */
function raw(method: string, target: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const { hostname, port } = new URL(t.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, method, path: target, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Spellings the router maps to the same route while the text does not start with "/v1/". */
function spellings(path: string): string[] {
  const { port } = new URL(t.url);
  return [
    path.replace('/v1', '/%761'),
    path.replace('/v1', '/%76%31'),
    `http://127.0.0.1:${port}${path}`,
    `${path}/`,
  ];
}

describe('authentication follows the matched route', () => {
  test('every route, spelled every way, answers 401 without a key (never 500, never the handler)', async () => {
    assert.ok(routes.length > 40, `the document lists the routes (${routes.length})`);
    const failures: string[] = [];
    const cases = routes.filter((r) => r.path !== '/v1/openapi.json')
      .flatMap(({ method, path }) => spellings(path).map((target) => ({ method, target })));
    for (let i = 0; i < cases.length; i += 8) {
      await Promise.all(cases.slice(i, i + 8).map(async ({ method, target }) => {
        const res = await raw(method, target, method === 'GET' || method === 'DELETE' ? {} : { 'content-type': 'application/json' });
        if (res.status !== 401) return failures.push(`${method} ${target}: ${res.status} ${res.body.slice(0, 120)}`);
        const body = JSON.parse(res.body);
        if (body.code !== 'missing_api_key') failures.push(`${method} ${target}: ${body.code}`);
        if (!res.headers['x-request-id'] || !res.headers['x-switchboard-ratelimit-remaining']) failures.push(`${method} ${target}: headers missing`);
      }));
    }
    assert.deepEqual(failures, []);
  });

  test('an encoded path with a valid key reaches the handler with the key applied', async () => {
    const res = await raw('GET', '/%761/account', { authorization: `Bearer ${acct.keys.sandbox}` });
    assert.equal(res.status, 200, res.body);
    assert.equal(JSON.parse(res.body).id, acct.account.id);
  });

  test('scopes apply to every spelling too', async () => {
    const readOnly = (await t.as(acct.keys.sandbox).post('/v1/keys', { name: 'ro', scopes: ['calls:read'] })).body.secret;
    for (const target of spellings('/v1/account')) {
      const res = await raw('GET', target, { authorization: `Bearer ${readOnly}` });
      assert.equal(res.status, 403, `${target}: ${res.body}`);
      assert.equal(JSON.parse(res.body).code, 'insufficient_scope');
    }
  });

  test('a double slash is not a way around the key', async () => {
    const res = await raw('GET', '//v1/account');
    assert.ok(res.status === 401 || res.status === 404, `${res.status} ${res.body}`);
    assert.match(String(res.headers['content-type']), /problem\+json/);
  });

  test('public routes are declared so: health, readiness, the document and the reference UI', async () => {
    for (const path of ['/healthz', '/readyz', '/v1/openapi.json', '/docs/']) {
      const res = await raw('GET', path);
      assert.equal(res.status, 200, `${path}: ${res.status}`);
    }
  });

  test('unknown paths stay 404 problems without a key', async () => {
    const res = await raw('GET', '/%761/nothing-here');
    assert.equal(res.status, 404);
    assert.equal(JSON.parse(res.body).code, 'route_not_found');
  });
});
