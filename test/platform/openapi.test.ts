import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { startTestServer, type TestServer, type CreatedAccount } from '../helpers/server.ts';
import { PROBLEMS } from '../../src/platform/problem-catalogue.ts';
import { EVENT_TYPES } from '../../src/events/catalogue.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const WRITES = new Set(['post', 'put', 'patch', 'delete']);

let t: TestServer;
let acct: CreatedAccount;
let doc: any;
before(async () => {
  t = await startTestServer();
  acct = await t.createAccount('scale');
  doc = (await t.request('GET', '/v1/openapi.json')).body;
});
after(() => t.close());

function operations(): Array<{ path: string; method: string; op: any }> {
  return Object.entries<any>(doc.paths).flatMap(([path, item]) => Object.entries<any>(item).map(([method, op]) => ({ path, method, op })));
}

function resolve(node: any): any {
  if (node?.$ref) return resolve(node.$ref.split('/').slice(1).reduce((at: any, key: string) => at[key.replace(/~1/g, '/')], doc));
  return node;
}

/** Every schema node of the document, with its JSON pointer. */
function* schemaNodes(node: any, pointer = ''): Generator<[string, any]> {
  if (Array.isArray(node)) {
    for (const [i, item] of node.entries()) yield* schemaNodes(item, `${pointer}/${i}`);
  } else if (node && typeof node === 'object') {
    yield [pointer, node];
    for (const [key, value] of Object.entries(node)) {
      if (!['example', 'examples', 'enum', 'default', 'x-extensible-enum'].includes(key)) yield* schemaNodes(value, `${pointer}/${key}`);
    }
  }
}

describe('OpenAPI document', () => {
  test('issue 10.22: is a valid OpenAPI 3.1 document (swagger-parser)', async () => {
    assert.equal(doc.openapi, '3.1.0');
    await SwaggerParser.validate(structuredClone(doc));
  });

  test('issue 10.22: passes `redocly lint` with the recommended rules: zero errors', () => {
    const dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
    try {
      const file = join(dir, 'openapi.json');
      writeFileSync(file, JSON.stringify(doc));
      let out: string;
      try {
        out = execFileSync(join('node_modules', '.bin', 'redocly'), ['lint', file, '--extends', 'recommended', '--format', 'json'], {
          encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'],
          env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
        });
      } catch (err: any) {
        out = String(err.stdout); // the CLI exits 1 when it finds errors; the report is still on stdout
      }
      const report = JSON.parse(out.slice(out.indexOf('{')));
      const errors = report.problems.filter((p: any) => p.severity === 'error');
      assert.deepEqual(errors.map((p: any) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`), []);
      assert.equal(report.totals.errors, 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('every operation has an id, a scope-guarded security requirement and problem responses', () => {
    const ids = new Set<string>();
    for (const { path, method, op } of operations()) {
      assert.ok(op.operationId, `${method} ${path} has an operationId`);
      assert.ok(!ids.has(op.operationId), `operationId ${op.operationId} is unique`);
      ids.add(op.operationId);
      assert.deepEqual(op.security, [{ bearerAuth: [] }], `${method} ${path} requires a key`);
      assert.match(op.description ?? '', /Required scope: `(\*|[a-z]+:(read|write))`\./, `${method} ${path} names its scope`);
      assert.ok(op.responses['200'], `${method} ${path} documents 200`);
      assert.ok(op.responses['401'] && op.responses['429'], `${method} ${path} documents 401 and 429`);
    }
    assert.ok(ids.has('getAccount') && ids.has('createKey') && ids.has('rotateKey'));
  });

  test('issue 10.19: every write declares the Idempotency-Key header; every response declares the headers the server sends', () => {
    for (const { path, method, op } of operations()) {
      const header = (op.parameters ?? []).find((p: any) => p.in === 'header' && p.name === 'Idempotency-Key');
      assert.equal(Boolean(header), WRITES.has(method), `${method} ${path} Idempotency-Key`);
      if (header) assert.equal(header.schema.maxLength, 255);
      for (const [status, response] of Object.entries<any>(op.responses)) {
        for (const header of ['X-Request-Id', 'X-Switchboard-RateLimit-Remaining', 'X-Switchboard-RateLimit-Reset']) {
          assert.ok(response.headers?.[header], `${method} ${path} ${status} declares ${header}`);
        }
        if (['409', '429', '503'].includes(status)) assert.ok(response.headers['Retry-After'], `${method} ${path} ${status} Retry-After`);
        if (WRITES.has(method)) assert.ok(response.headers['Idempotent-Replayed'], `${method} ${path} ${status} Idempotent-Replayed`);
      }
    }
    // At Remaining 0 the two differ; each description says how (issue 10.16).
    assert.match(doc.components.headers.XRateLimitReset.description, /Retry-After/);
    assert.match(doc.components.headers.RetryAfter.description, /X-Switchboard-RateLimit-Reset/);
  });

  test('issue 10.20: errors are application/problem+json with the codes each response can carry', () => {
    for (const { path, method, op } of operations()) {
      for (const [status, response] of Object.entries<any>(op.responses)) {
        if (Number(status) < 400) continue;
        assert.deepEqual(Object.keys(response.content), ['application/problem+json'], `${method} ${path} ${status}`);
        assert.equal(response.content['application/problem+json'].schema.$ref, '#/components/schemas/Problem');
        assert.ok(response['x-problem-codes'].length > 0, `${method} ${path} ${status} lists its codes`);
        for (const code of response['x-problem-codes']) {
          assert.equal(String((PROBLEMS as any)[code]?.status), status, `${method} ${path}: ${code} is a ${status} of the catalogue`);
        }
      }
      const codes = Object.values<any>(op.responses).flatMap((r) => r['x-problem-codes'] ?? []);
      for (const code of ['invalid_api_key', 'rate_limited', 'internal_error']) assert.ok(codes.includes(code), `${method} ${path} lists ${code}`);
      if (WRITES.has(method)) assert.ok(codes.includes('idempotency_key_reused'), `${method} ${path} lists idempotency_key_reused`);
    }
    const code = doc.components.schemas.Problem.properties.code;
    assert.equal(code.type, 'string');
    assert.equal(code.enum, undefined, 'Problem.code is an open string, so a new code cannot break a strict client');
    assert.deepEqual([...code['x-extensible-enum']].sort(), Object.keys(PROBLEMS).sort());
    assert.deepEqual(Object.keys(doc['x-problem-codes']).sort(), Object.keys(PROBLEMS).sort());
  });

  test('what the server answers is what the document declares', async () => {
    const res = await t.as(acct.keys.sandbox).get('/v1/calls/call_01jd8x0v6kf5b9w3t2q1r0p9n8');
    assert.equal(res.status, 404);
    assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
    const declared = doc.paths['/v1/calls/{id}'].get.responses['404'];
    assert.ok(declared['x-problem-codes'].includes(res.body.code));
    for (const header of Object.keys(declared.headers).filter((h) => h !== 'Retry-After')) {
      assert.ok(res.headers.get(header) !== null, `the 404 carries ${header}`);
    }
  });

  test('issue 10.21: limit is optional with its default; parameters and request bodies are regular and named', () => {
    let lists = 0;
    for (const { path, method, op } of operations()) {
      for (const parameter of (op.parameters ?? []).map(resolve)) {
        if (parameter.name === 'limit') {
          lists++;
          assert.equal(parameter.required, false, `${method} ${path} limit is optional`);
          assert.equal(parameter.schema.default, 20);
        }
        assert.notEqual(parameter.example, undefined, `${method} ${path} parameter ${parameter.name} has an example`);
      }
      const body = op.requestBody?.content?.['application/json']?.schema;
      if (body) assert.match(body.$ref ?? '', /^#\/components\/schemas\/[A-Z][A-Za-z]+Request$/, `${method} ${path} body is a named component`);
      const success = op.responses['200']?.content?.['application/json']?.schema;
      if (success) assert.ok(success.$ref, `${method} ${path} 200 body is a named component`);
    }
    assert.ok(lists >= 15, `every list takes limit (${lists})`);
    assert.ok(doc.components.schemas.CreateCallRequest.properties.from);
  });

  test('a request body is optional exactly where the server accepts none (SDKs then do not demand one)', async () => {
    const optional = operations().filter(({ op }) => op.requestBody?.required === false).map(({ op }) => op.operationId);
    for (const id of ['rotateKey', 'rotateWebhookSecret', 'rotateWebhookDefaultSecret', 'updateWebhook', 'createKey']) assert.ok(optional.includes(id), `${id} body is optional`);
    for (const id of ['createCall', 'sendMessage', 'advanceSandboxClock', 'createWebhook']) assert.ok(!optional.includes(id), `${id} body is required`);
    const api = t.as(acct.keys.sandbox);
    const key = await api.post('/v1/keys', { name: 'rotated without a body' });
    assert.equal((await t.request('POST', `/v1/keys/${key.body.id}/rotate`, { key: acct.keys.sandbox })).status, 200);
    const advance = await t.request('POST', '/v1/sandbox/clock/advance', { key: acct.keys.sandbox });
    assert.equal(advance.status, 400);
  });

  test('issue 10.21: enums are `enum`, and nullability is said one way', () => {
    for (const [pointer, node] of schemaNodes(doc)) {
      assert.equal(node.const, undefined, `${pointer} uses enum, not const`);
      if (Array.isArray(node.anyOf)) {
        const constants = node.anyOf.filter((s: any) => s.const !== undefined || s.enum?.length === 1);
        assert.ok(constants.length < node.anyOf.length, `${pointer}: anyOf of constants should be an enum`);
        const nulls = node.anyOf.filter((s: any) => s.type === 'null');
        if (nulls.length > 0) {
          assert.ok(node.anyOf.length === 2 && node.anyOf.some((s: any) => s.$ref), `${pointer}: only a nullable $ref uses anyOf with null`);
        }
      }
      if (Array.isArray(node.enum) && !pointer.endsWith('/properties')) assert.ok(node.type, `${pointer}: an enum says its type`);
      assert.equal(node.nullable, undefined, `${pointer}: no OpenAPI 3.0 nullable`);
    }
  });

  test('issue 10.21: every request field has an example that is valid for its schema', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema({ $id: 'doc', components: doc.components });
    const check = (schema: any, where: string) => {
      if (schema.$ref) return check(resolve(schema), where);
      assert.notEqual(schema.example, undefined, `${where} has an example`);
      const validate = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/')));
      assert.ok(validate(schema.example), `${where} example ${JSON.stringify(schema.example)}: ${ajv.errorsText(validate.errors)}`);
      for (const [name, field] of Object.entries<any>(schema.properties ?? {})) check(field, `${where}.${name}`);
      if (schema.items?.properties) check(schema.items, `${where}[]`);
    };
    let bodies = 0;
    for (const { path, method, op } of operations()) {
      const body = op.requestBody?.content?.['application/json']?.schema;
      if (!body) continue;
      bodies++;
      check(body, `${method} ${path}`);
    }
    assert.ok(bodies >= 20, `checked ${bodies} request bodies`);
  });

  test('issue 10.22: lists every webhook event of the catalogue with its payload schema', () => {
    assert.deepEqual(Object.keys(doc.webhooks).sort(), Object.keys(EVENT_TYPES).sort());
    for (const [type, item] of Object.entries<any>(doc.webhooks)) {
      const payload = resolve(item.post.requestBody.content['application/json'].schema);
      assert.deepEqual(payload.properties.type.enum, [type]);
      const object = payload.properties.data.properties.object;
      assert.match(object.$ref ?? '', /^#\/components\/schemas\/[A-Z]/, `${type} names the schema of data.object`);
    }
    for (const name of ['call.completed', 'call.recording.ready', 'message.delivered', 'ai.conversation.scored', 'number.ported']) {
      assert.ok(doc.webhooks[name], `webhook ${name}`);
    }
  });

  test('the interactive reference is served at /docs', async () => {
    const res = await t.request('GET', '/docs');
    assert.equal(res.status, 200);
    assert.match(String(res.body), /<html/i);
  });
});

describe('route schemas', () => {
  test('compile on first use, and every one of them compiles', async () => {
    const { schemas } = t.server.built;
    // Start-up compiled nothing but what the requests so far needed: most routes are still pending.
    assert.ok(schemas.pendingCount > 50, `${schemas.pendingCount} schemas still pending`);
    const before = schemas.pendingCount;
    const res = await t.as(acct.keys.sandbox).post('/v1/calls', { to: 'not a number', from: '+15005550006' });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'validation_failed');
    assert.ok(schemas.pendingCount < before, 'the first request to a route compiled its schemas');
    // What start-up used to do eagerly: any schema Ajv or fast-json-stringify refuses throws here.
    schemas.compileAll();
    assert.equal(schemas.pendingCount, 0);
    const list = await t.as(acct.keys.sandbox).get('/v1/calls');
    assert.equal(list.status, 200);
    assert.deepEqual(list.body, { object: 'list', data: [], has_more: false, next_cursor: null });
  });
});
