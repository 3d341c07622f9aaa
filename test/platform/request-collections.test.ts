// The Postman collection is served by the server, built from its own OpenAPI document: one
// request per operation, pointing at the server it came from, with example bodies that work.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { isEventStream } from '../../src/platform/request-collections.ts';

let t: TestServer;
before(async () => {
  t = await startTestServer();
});
after(async () => t.close());

function requests(collection: any): any[] {
  return collection.item.flatMap((folder: any) => folder.item);
}

test('GET /v1/collections/postman.json needs no key and holds one request per operation (event streams aside)', async () => {
  const res = await t.request('GET', '/v1/collections/postman.json');
  assert.equal(res.status, 200);
  const collection = res.body;
  assert.equal(collection.info.schema, 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json');
  assert.deepEqual(collection.auth.bearer[0], { key: 'token', value: '{{apiKey}}', type: 'string' });
  assert.equal(collection.variable.find((v: any) => v.key === 'baseUrl').value, t.url);

  const doc = (await t.request('GET', '/v1/openapi.json')).body;
  // A listen session's event stream never ends: `switchboard listen` is its client, not a collection.
  const operationIds = Object.values<any>(doc.paths).flatMap((item) => Object.values<any>(item).filter((op) => !isEventStream(op)).map((op) => op.operationId)).sort();
  assert.ok(!operationIds.includes('streamWebhookListenSession') && operationIds.includes('createWebhookListenSession'));
  const listed = requests(collection).map((r) => /operationId: (\S+)/.exec(r.request.description)![1]).sort();
  assert.deepEqual(listed, operationIds);
  for (const r of requests(collection)) {
    if (r.request.method !== 'GET') assert.ok(r.request.header.some((h: any) => h.key === 'Idempotency-Key'), `${r.name} has an Idempotency-Key`);
  }
});

test("the collection's createCall example, with its variables filled in, places a call", async () => {
  const account = await t.createAccount();
  const collection = (await t.request('GET', '/v1/collections/postman.json')).body;
  const create = requests(collection).find((r) => r.request.description.endsWith('operationId: createCall'));
  assert.equal(create.request.method, 'POST');
  assert.equal(create.request.url.raw, '{{baseUrl}}/v1/calls');
  const body = JSON.parse(create.request.body.raw.replace('{{from_number}}', account.numbers.sandbox[0]));
  const res = await t.as(account.keys.sandbox).post('/v1/calls', body);
  assert.equal(res.status, 200);
  assert.equal(res.body.status, 'queued');
});
