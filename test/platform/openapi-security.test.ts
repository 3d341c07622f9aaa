// What the interactive reference (/docs) and other OpenAPI tools read from the document: that
// a key is required (top-level `security`, which tools that do not look per operation use), and
// a sidebar where each section has one name (no tag called like the document's `webhooks`).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { generousAnonymousLimiter } from '../helpers/generous-limiter.ts';

let t: TestServer;
let doc: any;
before(async () => {
  // Every operation is called once without a key: more than one address's anonymous budget.
  t = await startTestServer({}, { limiter: generousAnonymousLimiter() });
  doc = (await t.request('GET', '/v1/openapi.json')).body;
});
after(() => t.close());

function operations(): Array<{ path: string; method: string; op: any }> {
  return Object.entries<any>(doc.paths).flatMap(([path, item]) => Object.entries<any>(item).map(([method, op]) => ({ path, method, op })));
}

describe('OpenAPI document: authentication and sections', () => {
  test('the document requires the bearer key at the top level, with the scheme it names', () => {
    assert.deepEqual(doc.security, [{ bearerAuth: [] }]);
    assert.deepEqual(doc.components.securitySchemes.bearerAuth, { type: 'http', scheme: 'bearer', description: 'sb_test_... or sb_live_...' });
  });

  test('each operation says what the server does: a key, or none (security: []) where it answers without one', async () => {
    for (const { path, method, op } of operations()) {
      const url = path.replace(/\{[^}]+\}/g, 'x_0');
      const res = await t.request(method.toUpperCase(), url, { key: undefined });
      if (op.security?.length === 0) {
        assert.notEqual(res.status, 401, `${method} ${path} says it needs no key`);
      } else {
        assert.deepEqual(op.security ?? doc.security, [{ bearerAuth: [] }], `${method} ${path}`);
        assert.equal(res.status, 401, `${method} ${path} without a key`);
        assert.equal(res.body.code, 'missing_api_key', `${method} ${path}`);
      }
    }
    // The webhooks the server sends carry a signature, not a key.
    for (const [type, item] of Object.entries<any>(doc.webhooks)) assert.deepEqual(item.post.security, [], type);
  });

  test('no tag is named like the webhooks section, so the reference lists "Webhooks" once', () => {
    const tags = new Set(operations().flatMap(({ op }) => op.tags ?? []));
    assert.ok(Object.keys(doc.webhooks).length > 0);
    assert.ok(![...tags].some((tag) => tag.toLowerCase() === 'webhooks'), [...tags].join(', '));
    assert.ok(tags.has('Webhook endpoints'), 'subscriptions and listen sessions have their own tag');
    assert.equal(operations().find(({ op }) => op.operationId === 'createWebhook')?.op.tags[0], 'Webhook endpoints');
    // Listed top-level tags (if any) are unique too.
    const listed = (doc.tags ?? []).map((tag: { name: string }) => tag.name.toLowerCase());
    assert.equal(new Set(listed).size, listed.length);
  });
});
