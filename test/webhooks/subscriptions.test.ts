// Subscriptions CRUD, validation and the URL policy with private targets NOT allowed
// (the production default): https in live, loopback only in sandbox.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer, type CreatedAccount } from '../helpers/server.ts';

let t: TestServer;
let acct: CreatedAccount;

before(async () => {
  t = await startTestServer({ SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE: 'false' });
  acct = await t.createAccount('scale');
});
after(() => t.close());

const sandbox = () => t.as(acct.keys.sandbox);
const live = () => t.as(acct.keys.live);

describe('webhook subscriptions', () => {
  test('create returns the secret once; get, list, update and delete never show it', async () => {
    const created = await sandbox().post('/v1/webhooks', { url: 'http://localhost:4242/hooks', events: ['call.completed', 'message.*'], description: 'dev' });
    assert.equal(created.status, 200);
    assert.match(created.body.id, /^wh_/);
    assert.match(created.body.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.deepEqual(
      { ...created.body, id: undefined, secret: undefined, created_at: undefined, updated_at: undefined },
      { id: undefined, secret: undefined, created_at: undefined, updated_at: undefined, object: 'webhook_endpoint', mode: 'sandbox',
        url: 'http://localhost:4242/hooks', description: 'dev', events: ['call.completed', 'message.*'], enabled: true,
        disabled_reason: null, previous_secret_expires_at: null, transport: 'http' },
    );
    const id = created.body.id;
    const got = await sandbox().get(`/v1/webhooks/${id}`);
    assert.equal(got.body.secret, undefined);
    const patched = await sandbox().patch(`/v1/webhooks/${id}`, { events: ['*'], enabled: false, description: null });
    assert.equal(patched.status, 200);
    assert.deepEqual([patched.body.events, patched.body.enabled, patched.body.description], [['*'], false, null]);
    assert.equal(patched.body.secret, undefined);
    const removed = await sandbox().delete(`/v1/webhooks/${id}`);
    assert.deepEqual(removed.body, { id, object: 'webhook_endpoint', deleted: true });
    assert.equal((await sandbox().get(`/v1/webhooks/${id}`)).status, 404);
  });

  test('list pages newest first and is separate per mode', async () => {
    const other = await t.createAccount('scale');
    const api = t.as(other.keys.sandbox);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await api.post('/v1/webhooks', { url: `http://127.0.0.1:900${i}/h` })).body.id);
    const first = await api.get('/v1/webhooks?limit=2');
    assert.deepEqual(first.body.data.map((w: any) => w.id), [ids[2], ids[1]]);
    assert.equal(first.body.has_more, true);
    const second = await api.get(`/v1/webhooks?limit=2&starting_after=${first.body.next_cursor}`);
    assert.deepEqual(second.body.data.map((w: any) => w.id), [ids[0]]);
    assert.equal(second.body.has_more, false);
    assert.ok(second.body.data.every((w: any) => w.secret === undefined));
    assert.deepEqual((await t.as(other.keys.live).get('/v1/webhooks')).body.data, []);
  });

  test('unknown event types are a 400 naming the field', async () => {
    const res = await sandbox().post('/v1/webhooks', { url: 'http://localhost:4242/hooks', events: ['call.completed', 'call.exploded'] });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'validation_failed');
    assert.deepEqual(res.body.errors.map((e: any) => [e.field, e.code]), [['events.1', 'invalid_value']]);
    const prefix = await sandbox().post('/v1/webhooks', { url: 'http://localhost:4242/hooks', events: ['fax.*'] });
    assert.equal(prefix.status, 400);
    assert.deepEqual(prefix.body.errors.map((e: any) => [e.field, e.code]), [['events.0', 'invalid_value']]);
    const extra = await sandbox().post('/v1/webhooks', { url: 'http://localhost:4242/hooks', secret: 'mine' });
    assert.equal(extra.status, 400);
  });

  for (const [mode, url, why] of [
    ['live', 'http://example.com/hooks', /https/],
    ['live', 'https://127.0.0.1/hooks', /public/],
    ['live', 'https://localhost/hooks', /public/],
    ['sandbox', 'http://10.1.2.3/hooks', /public/],
    ['sandbox', 'http://169.254.169.254/latest/meta-data', /public/],
    ['sandbox', 'http://[::ffff:192.168.0.1]/hooks', /public/],
    ['sandbox', 'http://0.0.0.0:8080/hooks', /public/],
    ['sandbox', 'ftp://example.com/hooks', /http/],
    ['sandbox', 'http://user:pw@localhost/hooks', /credentials/],
    ['sandbox', 'not a url', /absolute/],
  ] as const) {
    test(`${mode}: ${url} is refused with 422 webhook_url_not_allowed`, async () => {
      const res = await t.as(acct.keys[mode]).post('/v1/webhooks', { url });
      assert.equal(res.status, 422, JSON.stringify(res.body));
      assert.equal(res.body.code, 'webhook_url_not_allowed');
      assert.match(res.body.detail, why);
      assert.equal(res.body.errors[0].field, 'url');
    });
  }

  test('sandbox allows http to loopback; a PATCH to a refused URL is refused too', async () => {
    for (const url of ['http://localhost:3000/hooks', 'http://127.0.0.1:3000/hooks', 'http://[::1]:3000/hooks']) {
      const res = await sandbox().post('/v1/webhooks', { url });
      assert.equal(res.status, 200, `${url}: ${JSON.stringify(res.body)}`);
    }
    const wh = (await sandbox().post('/v1/webhooks', { url: 'http://localhost:3000/hooks' })).body;
    const res = await sandbox().patch(`/v1/webhooks/${wh.id}`, { url: 'http://192.168.1.1/hooks' });
    assert.equal(res.status, 422);
    assert.equal(res.body.code, 'webhook_url_not_allowed');
  });

  test('scopes: webhooks:read lists but cannot create or read secrets; events:read reads events', async () => {
    const key = await sandbox().post('/v1/keys', { scopes: ['webhooks:read', 'events:read'] });
    const reader = t.as(key.body.secret);
    assert.equal((await reader.get('/v1/webhooks')).status, 200);
    assert.equal((await reader.get('/v1/events')).status, 200);
    assert.equal((await reader.post('/v1/webhooks', { url: 'http://localhost:3000/h' })).body.code, 'insufficient_scope');
    assert.equal((await reader.get('/v1/webhooks/default_secret')).body.code, 'insufficient_scope');
    const none = await sandbox().post('/v1/keys', { scopes: ['calls:read'] });
    assert.equal((await t.as(none.body.secret).get('/v1/events')).body.code, 'insufficient_scope');
  });

  test('the OpenAPI document has a webhooks entry per event type with its object schema', async () => {
    const doc = (await t.request('GET', '/v1/openapi.json')).body;
    for (const type of ['call.completed', 'call.recording.ready', 'message.delivered', 'ai.conversation.scored', 'number.ported', 'webhook.test']) {
      assert.ok(doc.webhooks[type], type);
    }
    // Each event's payload is a named component (generators give it a type of its own).
    const ref = doc.webhooks['webhook.test'].post.requestBody.content['application/json'].schema.$ref as string;
    const test = doc.components.schemas[ref.replace('#/components/schemas/', '')];
    assert.equal(test.properties.data.properties.object.$ref, '#/components/schemas/WebhookTest');
    assert.ok(doc.paths['/v1/webhooks/dead_letters']);
    assert.ok(doc.paths['/v1/events/{id}/deliveries']);
  });
});
