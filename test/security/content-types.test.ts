// Issue 11.11: a request body is JSON (application/json) in UTF-8 and not compressed. Any other
// Content-Type (text/plain included), a Content-Encoding we do not decode, or a charset other
// than UTF-8 is a 415 `unsupported_media_type` problem with the usual headers, and writes
// nothing. An empty body is "no body" whatever its label, so body-less actions still work.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync, brotliCompressSync, deflateSync } from 'node:zlib';
import { startTestServer, type CreatedAccount, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let acct: CreatedAccount;
const BODY = JSON.stringify({ url: 'http://127.0.0.1:9/hooks' });

before(async () => {
  t = await startTestServer();
  acct = await t.createAccount('scale');
});
after(() => t.close());

/** A raw request: the body bytes and headers exactly as given (fetch adds no Content-Type to bytes). */
async function send(path: string, body: Uint8Array | null, headers: Record<string, string>, key: string | null = acct.keys.sandbox) {
  const res = await fetch(t.url + path, {
    method: 'POST',
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
    body: body ? new Blob([new Uint8Array(body)]) : null, // a Blob without a type: fetch adds no Content-Type
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: /json/.test(res.headers.get('content-type') ?? '') && text ? JSON.parse(text) : text };
}

function assert415(res: Awaited<ReturnType<typeof send>>, label: string, detail: RegExp): void {
  assert.equal(res.status, 415, `${label}: ${JSON.stringify(res.body)}`);
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/, label);
  assert.equal(res.body.code, 'unsupported_media_type', label);
  assert.equal(res.body.status, 415, label);
  assert.match(res.body.detail, detail, label);
  assert.match(res.headers.get('x-request-id') ?? '', /^req_/, label);
  assert.equal(res.body.request_id, res.headers.get('x-request-id'), label);
  assert.ok(res.headers.get('x-switchboard-ratelimit-remaining') && res.headers.get('x-switchboard-ratelimit-reset'), `${label}: rate-limit headers`);
}

async function webhookCount(): Promise<number> {
  return (await t.as(acct.keys.sandbox).get('/v1/webhooks?limit=100')).body.data.length;
}

const utf8 = (text: string) => new TextEncoder().encode(text);

describe('content types (11.11)', () => {
  test('a JSON write labelled as anything but application/json is a 415, and nothing is written', async () => {
    const before = await webhookCount();
    for (const type of ['text/plain', 'text/plain;charset=UTF-8', 'text/json', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x',
      'application/xml', 'application/vnd.api+json', 'application/octet-stream', 'application/jsonx']) {
      assert415(await send('/v1/webhooks', utf8(BODY), { 'content-type': type }), type, /Content-Type .* is not accepted: send the body as JSON/);
    }
    assert415(await send('/v1/webhooks', utf8(BODY), {}), 'no Content-Type', /no Content-Type/);
    assert.equal(await webhookCount(), before, 'nothing was created');
  });

  test('a Content-Encoding we do not decode is a 415, even on a body that would be valid JSON', async () => {
    const before = await webhookCount();
    for (const [encoding, bytes] of [['gzip', gzipSync(BODY)], ['br', brotliCompressSync(BODY)], ['deflate', deflateSync(BODY)], ['x-custom', utf8(BODY)], ['gzip, identity', gzipSync(BODY)]] as const) {
      assert415(await send('/v1/webhooks', bytes, { 'content-type': 'application/json', 'content-encoding': encoding }), encoding, /Content-Encoding .* is not supported/);
    }
    assert.equal(await webhookCount(), before, 'nothing was created');
  });

  test('a charset other than UTF-8 is a 415; UTF-8 in any spelling is read', async () => {
    for (const charset of ['latin1', 'iso-8859-1', 'utf-16', 'us-ascii', '"windows-1252"']) {
      assert415(await send('/v1/webhooks', utf8(BODY), { 'content-type': `application/json; charset=${charset}` }), charset, /charset=.* is not supported/);
    }
    for (const type of ['application/json', 'application/json; charset=utf-8', 'application/json;charset=UTF-8', 'application/json; charset="utf-8"', 'Application/JSON; Charset=UTF8']) {
      const res = await send('/v1/webhooks', utf8(BODY), { 'content-type': type });
      assert.equal(res.status, 200, `${type}: ${JSON.stringify(res.body)}`);
    }
    const identity = await send('/v1/webhooks', utf8(BODY), { 'content-type': 'application/json', 'content-encoding': 'identity' });
    assert.equal(identity.status, 200, 'identity is no encoding at all');
  });

  test('body-less actions work with no body, whatever Content-Type the client sends by habit', async () => {
    const api = t.as(acct.keys.sandbox);
    for (const headers of [{}, { 'content-type': 'application/json' }, { 'content-type': 'text/plain;charset=UTF-8' }, { 'content-type': 'application/json', 'content-encoding': 'gzip' }] as Record<string, string>[]) {
      const key = (await api.post('/v1/keys', { name: 'temp', scopes: ['calls:read'] })).body;
      const res = await send(`/v1/keys/${key.id}/revoke`, null, headers);
      assert.equal(res.status, 200, `${JSON.stringify(headers)}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.status, 'revoked');
    }
  });

  test('authentication comes first: no key with a text/plain body is a 401, and an unknown route stays a 404', async () => {
    const anonymous = await send('/v1/webhooks', utf8(BODY), { 'content-type': 'text/plain' }, null);
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.body.code, 'missing_api_key');
    const unknown = await send('/v1/no-such-thing', utf8(BODY), { 'content-type': 'text/plain' });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.code, 'route_not_found');
  });
});
