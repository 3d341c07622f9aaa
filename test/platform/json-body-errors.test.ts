// What a JSON body's mistakes are called (issue 22, defect 5): valid JSON with a __proto__
// or constructor.prototype key is refused by name and reason, never called malformed; truly
// malformed JSON says where the mistake is.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useSandboxAccount } from '../helpers/sandbox-account.ts';

const sandbox = useSandboxAccount();

const post = (path: string, raw: string) => sandbox.server.request('POST', path, { key: sandbox.account.keys.sandbox, raw });

function assertRefusedKey(res: { status: number; body: any }, field: string, key: string) {
  assert.equal(res.status, 400, JSON.stringify(res.body));
  assert.equal(res.body.code, 'validation_failed');
  assert.ok(res.body.detail.includes(`"${key}"`) && res.body.detail.includes(field), res.body.detail);
  assert.match(res.body.detail, /prototype pollution/);
  assert.deepEqual(res.body.errors.map((e: any) => [e.field, e.code]), [[field, 'not_allowed']]);
}

function assertMalformedAt(res: { status: number; body: any }, line: number, column: number) {
  assert.equal(res.status, 400, JSON.stringify(res.body));
  assert.equal(res.body.code, 'malformed_json');
  assert.match(res.body.detail, new RegExp(`^The body is not valid JSON: .+, at line ${line}, column ${column} \\(character \\d+\\)\\.$`), res.body.detail);
}

describe('keys that could pollute a prototype', () => {
  test('a top-level __proto__ key is a 400 naming it, and nothing is created', async () => {
    const before = (await sandbox.api().get('/v1/keys?limit=100')).body.data.length;
    assertRefusedKey(await post('/v1/keys', '{"name": "k", "__proto__": {"admin": true}}'), '__proto__', '__proto__');
    assert.equal((await sandbox.api().get('/v1/keys?limit=100')).body.data.length, before);
  });

  test('a nested one names its path', async () => {
    assertRefusedKey(await post('/v1/calls', JSON.stringify({ from: sandbox.from, to: '+14155550100' }).replace(/}$/, ', "metadata": {"__proto__": {"x": "1"}}}')),
      'metadata.__proto__', '__proto__');
  });

  test('constructor.prototype is refused too, and an escaped __proto__ as well', async () => {
    assertRefusedKey(await post('/v1/keys', '{"name": "k", "constructor": {"prototype": {"admin": true}}}'), 'constructor.prototype', 'constructor.prototype');
    assertRefusedKey(await post('/v1/keys', '{"name": "k", "\\u005f_proto__": {}}'), '__proto__', '__proto__');
  });

  test('a constructor key without prototype is only an unknown field', async () => {
    const res = await post('/v1/keys', '{"name": "k", "constructor": "x"}');
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.deepEqual(res.body.errors.map((e: any) => [e.field, e.code]), [['constructor', 'unknown_field']]);
  });
});

describe('malformed JSON says where', () => {
  test('a missing comma: the line and column of the next property', async () => {
    assertMalformedAt(await post('/v1/keys', '{\n  "name": "a"\n  "scopes": "all"\n}'), 3, 3);
  });

  test('mistakes V8 gives no position for are placed too', async () => {
    assertMalformedAt(await post('/v1/keys', 'xx'), 1, 1);
    assertMalformedAt(await post('/v1/keys', '{"name": tru}'), 1, 13);
    assertMalformedAt(await post('/v1/keys', '{"name": '), 1, 10);
  });

  test('a trailing comma, and text after the value', async () => {
    assertMalformedAt(await post('/v1/keys', '{"name": "a",}'), 1, 14);
    assertMalformedAt(await post('/v1/keys', '{"name": "a"} x'), 1, 15);
  });
});

describe('a body nested too deep', () => {
  // Found by the fuzzer: 3,000 levels of {"a":[...]} under a flow overflowed the stack of the
  // walks that read it, a 500 on POST /v1/calls/{id}/flow.
  const nested = (depth: number) => `{"flow":[${'{"a":['.repeat(depth)}{}${']}'.repeat(depth)}]}`;

  test('is a 400 saying how deep is allowed, on every route, and the server goes on', async () => {
    for (const path of ['/v1/calls/call_00000000000000000000000000/flow', '/v1/calls', '/v1/keys']) {
      const res = await post(path, nested(3000));
      assert.equal(res.status, 400, `${path}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, 'validation_failed');
      assert.match(res.body.detail, /more than 64 levels deep/);
    }
    assert.equal((await sandbox.api().get('/v1/account')).status, 200);
  });

  test('63 levels are read (and judged on their content); brackets inside strings do not count', async () => {
    // {"flow":[ is two levels, each {"a":[ two more, and the innermost {} one: 2 + 60 + 1.
    const res = await post('/v1/calls/call_00000000000000000000000000/flow', nested(30));
    assert.doesNotMatch(String(res.body.detail), /levels deep/, JSON.stringify(res.body));
    const quoted = await post('/v1/keys', `{"name": "${'[{'.repeat(40)}"}`);
    assert.equal(quoted.status, 200, JSON.stringify(quoted.body));
  });
});
