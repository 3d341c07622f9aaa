// NUL characters (U+0000) are refused with a 400 the same way on both databases (issue 11.6):
// PostgreSQL cannot store them in text or JSON, so before the fix `GET /v1/calls/call_%00`
// and a description holding "\u0000" answered 500 there while SQLite stored them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer, type CreatedAccount } from '../helpers/server.ts';

let t: TestServer;
let acct: CreatedAccount;
let doc: any;

before(async () => {
  t = await startTestServer();
  acct = await t.createAccount('scale');
  doc = (await t.request('GET', '/v1/openapi.json')).body;
});
after(() => t.close());

function assertNulRefused(res: { status: number; body: any; headers: Headers }, where: string, field: string): void {
  assert.equal(res.status, 400, `${where}: ${JSON.stringify(res.body)}`);
  assert.equal(res.body.code, 'validation_failed', where);
  assert.ok(res.headers.get('x-request-id'), `${where}: X-Request-Id`);
  assert.deepEqual(res.body.errors, [{ field, code: 'invalid_format', message: 'must not contain the NUL character (U+0000)' }], where);
}

describe('NUL characters', () => {
  test('an id holding %00 in any path parameter of any route is a 400 naming the parameter', async () => {
    const failures: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
      if (names.length === 0) continue;
      for (const method of Object.keys(ops).filter((m) => ['get', 'post', 'patch', 'delete'].includes(m))) {
        for (const name of names) {
          const target = path.replace(/\{([^}]+)\}/g, (_, n: string) => (n === name ? 'x_%00' : 'x_1'));
          const res = await t.request(method.toUpperCase(), target, { key: acct.keys.sandbox, ...(method === 'get' || method === 'delete' ? {} : { body: {} }) });
          if (res.status !== 400 || res.body.errors?.[0]?.field !== name || res.body.errors?.[0]?.message !== 'must not contain the NUL character (U+0000)') {
            failures.push(`${method.toUpperCase()} ${target}: ${res.status} ${JSON.stringify(res.body).slice(0, 160)}`);
          }
        }
      }
    }
    assert.deepEqual(failures, []);
  });

  test('GET /v1/calls/call_%00 is the 400, on every database', async () => {
    assertNulRefused(await t.as(acct.keys.sandbox).get('/v1/calls/call_%00'), 'GET /v1/calls/call_%00', 'id');
  });

  test('a text field holding \\u0000 is refused and nothing is created', async () => {
    const before = (await t.as(acct.keys.sandbox).get('/v1/webhooks?limit=100')).body.data.length;
    const res = await t.as(acct.keys.sandbox).post('/v1/webhooks', { url: 'http://127.0.0.1:9/hook', description: 'a\u0000b', events: ['webhook.test'] });
    assertNulRefused(res, 'POST /v1/webhooks', 'description');
    const res2 = await t.as(acct.keys.sandbox).post('/v1/keys', { name: 'nul\u0000', scopes: ['calls:read'] });
    assertNulRefused(res2, 'POST /v1/keys', 'name');
    assert.equal((await t.as(acct.keys.sandbox).get('/v1/webhooks?limit=100')).body.data.length, before);
  });

  test('a NUL deep in a free-form object, in a key or a value, is refused', async () => {
    const number = acct.numbers.sandbox[0]!;
    const inValue = await t.as(acct.keys.sandbox).post('/v1/calls', { from: number, to: '+14155550100', metadata: { note: 'x\u0000' } });
    assertNulRefused(inValue, 'metadata value', 'metadata.note');
    const inKey = await t.as(acct.keys.sandbox).post('/v1/calls', { from: number, to: '+14155550100', metadata: { 'k\u0000': 'v' } });
    assertNulRefused(inKey, 'metadata key', 'metadata.k\\u0000');
  });

  test('a query parameter holding %00 is refused', async () => {
    assertNulRefused(await t.as(acct.keys.sandbox).get('/v1/calls?starting_after=call_%00'), 'starting_after', 'starting_after');
  });

  test('an ordinary request still works', async () => {
    const res = await t.as(acct.keys.sandbox).post('/v1/webhooks', { url: 'http://127.0.0.1:9/hook', description: 'no nul here', events: ['webhook.test'] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  });
});
