import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import SwaggerParser from '@apidevtools/swagger-parser';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { PROBLEMS } from '../../src/platform/problem-catalogue.ts';

let t: TestServer;
let doc: any;
before(async () => {
  t = await startTestServer();
  doc = (await t.request('GET', '/v1/openapi.json')).body;
});
after(() => t.close());

describe('OpenAPI document', () => {
  test('is a valid OpenAPI 3.1 document', async () => {
    assert.equal(doc.openapi, '3.1.0');
    await SwaggerParser.validate(structuredClone(doc));
  });

  test('every operation has an id, a scope-guarded security requirement and problem responses', () => {
    const ids = new Set<string>();
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        assert.ok(op.operationId, `${method} ${path} has an operationId`);
        assert.ok(!ids.has(op.operationId), `operationId ${op.operationId} is unique`);
        ids.add(op.operationId);
        assert.deepEqual(op.security, [{ bearerAuth: [] }], `${method} ${path} requires a key`);
        assert.match(op.description ?? '', /Required scope: `(\*|[a-z]+:(read|write))`\./, `${method} ${path} names its scope`);
        assert.ok(op.responses['200'], `${method} ${path} documents 200`);
        assert.ok(op.responses['401'] && op.responses['429'], `${method} ${path} documents 401 and 429`);
      }
    }
    assert.ok(ids.has('getAccount') && ids.has('createKey') && ids.has('rotateKey'));
  });

  test('lists the problem catalogue and the webhooks with the exact event names', () => {
    assert.deepEqual(Object.keys(doc['x-problem-codes']).sort(), Object.keys(PROBLEMS).sort());
    for (const name of ['call.completed', 'call.recording.ready', 'message.delivered', 'ai.conversation.scored', 'number.ported']) {
      assert.ok(doc.webhooks[name], `webhook ${name}`);
    }
    assert.ok(doc.components.schemas.Problem);
  });

  test('the interactive reference is served at /docs', async () => {
    const res = await t.request('GET', '/docs');
    assert.equal(res.status, 200);
    assert.match(String(res.body), /<html/i);
  });
});
