// The fuzz test of issue 11 ("Done when"): requests generated from the OpenAPI document the
// real server serves, mutated in their path parameters (encoded, NUL, over-long, ids of another
// kind), query parameters, bodies (wrong types, missing and extra fields, huge strings, deep
// nesting, not JSON) and headers (content type, encoding, idempotency keys), sent with keys
// of several scopes and modes, invalid and revoked keys, and none. Whatever comes back: never
// a 5xx; every error is application/problem+json with a `code`; every response carries
// X-Request-Id and both rate-limit headers; /healthz answers at the end.
// Seeded: FUZZ_SEED=<n> replays a run (the seed is printed); FUZZ_REQUESTS sizes it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type CreatedAccount, type TestServer } from '../helpers/server.ts';
import { generousLimiter } from '../helpers/generous-limiter.ts';
import { Agent } from 'undici';

const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 1500);
const PARALLEL = 6;

/** mulberry32: small, fast, and the same sequence for the same seed. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
    chance: (p: number) => next() < p,
  };
}
type Rng = ReturnType<typeof prng>;

interface Operation { method: string; path: string; params: string[]; query: any; body: any }

let t: TestServer;
let acct: CreatedAccount;
let doc: any;
const keys: Record<string, string | null> = {};
const ids: string[] = [];

before(async () => {
  t = await startTestServer({}, { limiter: generousLimiter() });
  acct = await t.createAccount('scale');
  doc = (await t.request('GET', '/v1/openapi.json')).body;
  const api = t.as(acct.keys.sandbox);
  const scoped = async (scopes: string[]) => (await api.post('/v1/keys', { name: `fuzz ${scopes.join(' ')}`, scopes })).body.secret as string;
  const revoked = (await api.post('/v1/keys', { name: 'fuzz revoked', scopes: ['calls:read'] })).body;
  await api.post(`/v1/keys/${revoked.id}/revoke`);
  Object.assign(keys, {
    sandbox: acct.keys.sandbox, live: acct.keys.live, callsRead: await scoped(['calls:read']), messagesWrite: await scoped(['messages:write', 'numbers:read']),
    revoked: revoked.secret, unknown: `sb_test_${'x'.repeat(32)}`, malformed: 'not-a-key', none: null,
  });
  // Real ids of several kinds, to send where another kind belongs (keys left out: the fuzz must not revoke its own).
  const number = (await api.get('/v1/numbers')).body.data[0];
  ids.push(number.id);
  ids.push((await api.post('/v1/calls', { from: number.phone_number, to: '+14155550123' })).body.id);
  ids.push((await api.post('/v1/webhooks', { url: 'http://127.0.0.1:9/fuzz' })).body.id);
  ids.push((await api.post('/v1/ai/agents', { name: 'Fuzz' })).body.id);
  assert.ok(ids.every((id) => typeof id === 'string'), `fixtures: ${ids.join(', ')}`);
});
after(async () => {
  await dispatcher.close();
  await t.close();
});

function resolveRef(schema: any): any {
  return schema?.$ref ? resolveRef(doc.components.schemas[schema.$ref.split('/').pop()]) : schema;
}

/** Event streams hold the connection open: not something a request-per-case fuzzer can read. */
function isStream(op: any): boolean {
  return Object.values<any>(op.responses ?? {}).some((r) => r?.content?.['text/event-stream']);
}

function operations(): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      if (!['get', 'post', 'patch', 'put', 'delete'].includes(method) || isStream(op)) continue;
      const parameters = (op.parameters ?? []) as any[];
      const query = Object.fromEntries(parameters.filter((p) => p.in === 'query').map((p) => [p.name, p.schema ?? {}]));
      ops.push({ method: method.toUpperCase(), path, params: parameters.filter((p) => p.in === 'path').map((p) => p.name), query,
        body: op.requestBody?.content?.['application/json']?.schema ?? null });
    }
  }
  return ops;
}

/** A value the schema accepts, more or less: the mutations come after. */
function generate(rng: Rng, raw: any, depth = 0): unknown {
  const schema = resolveRef(raw) ?? {};
  if (depth > 6) return null;
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return rng.pick(schema.enum);
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return generate(rng, rng.pick(union), depth + 1);
  const type = Array.isArray(schema.type) ? rng.pick(schema.type) : schema.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [name, sub] of Object.entries<any>(schema.properties ?? {})) {
        if ((schema.required ?? []).includes(name) || rng.chance(0.5)) out[name] = generate(rng, sub, depth + 1);
      }
      return out;
    }
    case 'array': return Array.from({ length: rng.int(3) + (schema.minItems ?? 0) }, () => generate(rng, schema.items ?? {}, depth + 1));
    case 'integer': return (schema.minimum ?? 0) + rng.int(10);
    case 'number': return (schema.minimum ?? 0) + rng.next() * 10;
    case 'boolean': return rng.chance(0.5);
    case 'null': return null;
    case 'string': {
      if (schema.format === 'uri' || /url/i.test(schema.description ?? '')) return rng.pick(['http://127.0.0.1:9/f', 'https://93.184.215.14/f', 'http://0.0.0.0:9/']);
      if (schema.format === 'date-time') return new Date(Date.UTC(2026, 10, 23)).toISOString();
      return rng.pick(['+14155550123', '+15005550006', 'hello', 'a'.repeat(schema.minLength ?? 1), ids[rng.int(ids.length)]!, 'en-US', 'sms']);
    }
    default: return rng.pick(['x', 1, true, null, {}, []]);
  }
}

const HOSTILE_STRINGS = ['', ' ', '\u0000', 'a\u0000b', '%00', '\ud800', '😀'.repeat(50), 'x'.repeat(70_000), '../../etc/passwd', '${7*7}', "' OR 1=1 --",
  '<script>', '-1', '1e309', 'NaN', 'null', '[]', '{}', '+1', '+999999999999999999999', 'call_', 'call_01jd8x0v6kf5b9w3t2q1r0p9n8'];

/** Deep nesting is spliced in as text (JSON.stringify itself would overflow): a marker, replaced after. */
const deep = (n: number) => `__DEEP_${n}__`;
function spliceDeep(text: string): string {
  return text.replace(/"__DEEP_(\d+)__"/g, (_m, n) => '[{"a":'.repeat(Number(n)) + '1' + '}]'.repeat(Number(n)));
}

/** One mutation of a generated body. */
function mutate(rng: Rng, value: any, schema: any): unknown {
  const resolved = resolveRef(schema) ?? {};
  const names = Object.keys(resolved.properties ?? {});
  const obj = value && typeof value === 'object' && !Array.isArray(value) ? { ...value } : {};
  switch (rng.int(9)) {
    case 0: if (names.length) obj[rng.pick(names)] = rng.pick([1, -1, 1e308, true, null, [], {}, [1, 'a'], { x: 1 }]); return obj;
    case 1: if (names.length) obj[rng.pick(names)] = rng.pick(HOSTILE_STRINGS); return obj;
    case 2: for (const r of resolved.required ?? []) if (rng.chance(0.6)) delete obj[r]; return obj;
    case 3: obj[rng.pick(['extra', '__proto__', 'constructor', 'id', 'account_id', 'mode'])] = rng.pick(['x', { polluted: true }, 1]); return obj;
    case 4: if (names.length) obj[rng.pick(names)] = deep(rng.pick([50, 500, 5000])); return obj;
    case 5: return rng.pick([[], 'string', 42, null, true, [obj]]);
    case 6: if (names.length) obj[rng.pick(names)] = Array.from({ length: rng.pick([100, 5000]) }, () => rng.pick(HOSTILE_STRINGS.slice(0, 8))); return obj;
    default: return obj;
  }
}

/** Percent-encodes; a lone surrogate becomes the bytes of one (%ED%A0%80), invalid UTF-8 on purpose. */
function enc(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return text.split('').map((ch) => (/[\ud800-\udfff]/.test(ch) ? '%ED%A0%80' : encodeURIComponent(ch))).join('');
  }
}

function pathParam(rng: Rng): string {
  const id = rng.pick(ids);
  return rng.pick([
    id, id, enc(rng.pick(HOSTILE_STRINGS.slice(0, 12))), '%00', `${id}%00`, 'x'.repeat(rng.pick([101, 300, 5000])), '%ff%fe', '%2e%2e', '%2F',
    id.toUpperCase(), `${id.slice(0, -1)}!`, '+14155550123', '%2B14155550123', '0', '-1', encodeURIComponent('😀'), `${id}%20`, '%',
  ]);
}

function queryString(rng: Rng, query: Record<string, any>): string {
  const parts: string[] = [];
  for (const [name, schema] of Object.entries(query)) {
    if (!rng.chance(0.4)) continue;
    const good = generate(rng, schema);
    const value = rng.chance(0.5) ? String(good) : rng.pick(HOSTILE_STRINGS.slice(0, 20));
    parts.push(`${enc(name)}=${enc(value.slice(0, 3000))}`);
    if (rng.chance(0.1)) parts.push(`${enc(name)}=again`);
  }
  if (rng.chance(0.15)) parts.push(rng.pick(['unknown=1', 'limit=-5', 'limit=100000', 'starting_after=zzz', 'limit', '%00=1', 'limit=%00']));
  return parts.length ? `?${parts.join('&')}` : '';
}

interface Case { method: string; target: string; headers: Record<string, string>; body: Uint8Array | null }

function makeCase(rng: Rng, op: Operation): Case {
  let target = op.path;
  for (const name of op.params) target = target.replace(`{${name}}`, pathParam(rng));
  target += queryString(rng, op.query);
  const headers: Record<string, string> = {};
  // Mostly keys that pass, so the requests reach the handlers; a quarter refused at the door.
  const key = keys[rng.chance(0.75) ? rng.pick(['sandbox', 'sandbox', 'sandbox', 'live', 'callsRead', 'messagesWrite']) : rng.pick(Object.keys(keys))];
  if (key) headers.authorization = rng.chance(0.95) ? `Bearer ${key}` : rng.pick([key, `Basic ${key}`, 'Bearer', `Bearer ${key} extra`]);
  let body: Uint8Array | null = null;
  if (op.body || (op.method !== 'GET' && rng.chance(0.1))) {
    const generated = op.body ? generate(rng, op.body) : {};
    const value = rng.chance(0.75) ? mutate(rng, generated, op.body) : generated;
    const text = rng.chance(0.07) ? rng.pick(['{"a":', 'not json', '{"a":1}{"b":2}', '\u0000', '[1,2', '']) : spliceDeep(JSON.stringify(value));
    body = rng.chance(0.03) ? new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]) : new TextEncoder().encode(text);
    headers['content-type'] = rng.chance(0.85) ? 'application/json'
      : rng.pick(['text/plain', 'application/json; charset=latin1', 'application/x-www-form-urlencoded', 'application/json; charset=utf-8', 'multipart/form-data', '*/*', ';;', 'application/json; charset=']);
    if (rng.chance(0.05)) headers['content-encoding'] = rng.pick(['gzip', 'br', 'identity', 'x, y']);
  }
  if (op.method !== 'GET' && rng.chance(0.4)) {
    headers['idempotency-key'] = rng.pick([`fuzz-${rng.int(20)}`, `fuzz-${rng.next()}`, 'k'.repeat(rng.pick([255, 256, 5000])), ' ', 'é', 'a,b']);
  }
  return { method: op.method, target, headers, body };
}

interface Outcome { status: number; headers: Headers; text: string }

// The fuzzer's own connections are kept idle at most 10 s, far inside the server's 72 s
// keep-alive. With fetch's default the client keeps a connection for the server's hint less
// a second, counted from when it has read the answer; the server counts from when it wrote
// it. Here both run in one process at nice 19 beside CI's load, and when the process stalled
// between the two the server closed the connection first, while the client reused it for its
// next request: a reset (CI7 to CI11, one case in 1,500 each time, a different one each time,
// never alone). That race belongs to every HTTP client of a keep-alive server; an idle limit
// well below the server's is the usual cure.
const dispatcher = new Agent({ keepAliveTimeout: 10_000, keepAliveMaxTimeout: 10_000 });

/** The answer, or why there was none (a reset connection is a defect of its own, named with its case). */
async function sendCase(c: Case): Promise<Outcome | { failed: string }> {
  try {
    const res = await fetch(t.url + c.target, { method: c.method, headers: c.headers, body: c.body ? new Blob([new Uint8Array(c.body)]) : null, dispatcher } as RequestInit);
    return { status: res.status, headers: res.headers, text: await res.text() };
  } catch (error: any) {
    return { failed: `no answer: ${error?.message} (${error?.cause?.code ?? error?.cause?.message ?? 'no cause'})` };
  }
}

/** What is wrong with an answer, or null. */
function defect(res: Outcome): string | null {
  if (res.status >= 500) return `status ${res.status}: ${res.text.slice(0, 300)}`;
  if (!/^req_/.test(res.headers.get('x-request-id') ?? '')) return 'no X-Request-Id';
  if (res.headers.get('x-switchboard-ratelimit-remaining') === null || res.headers.get('x-switchboard-ratelimit-reset') === null) return 'rate-limit headers missing';
  if (res.status >= 400) {
    if (!/^application\/problem\+json/.test(res.headers.get('content-type') ?? '')) return `error ${res.status} as ${res.headers.get('content-type')}`;
    let body: any;
    try {
      body = JSON.parse(res.text);
    } catch {
      return `error ${res.status} body is not JSON`;
    }
    if (typeof body.code !== 'string' || body.status !== res.status) return `error ${res.status} without a code: ${res.text.slice(0, 200)}`;
  }
  return null;
}

test(`fuzz from the OpenAPI document (seed ${SEED}, ${REQUESTS} requests): no 5xx, problems and headers on every answer, the server stays up`, async () => {
  const rng = prng(SEED);
  const ops = operations();
  assert.ok(ops.length > 40, `the document lists the operations (${ops.length})`);
  const cases = Array.from({ length: REQUESTS }, () => makeCase(rng, rng.pick(ops)));
  const histogram = new Map<number, number>();
  const defects: string[] = [];
  for (let i = 0; i < cases.length; i += PARALLEL) {
    await Promise.all(cases.slice(i, i + PARALLEL).map(async (c) => {
      const res = await sendCase(c);
      const status = 'failed' in res ? 0 : res.status;
      histogram.set(status, (histogram.get(status) ?? 0) + 1);
      const wrong = 'failed' in res ? res.failed : defect(res);
      if (wrong && defects.length < 30) defects.push(`${c.method} ${c.target.slice(0, 200)} [${JSON.stringify(c.headers).slice(0, 200)}] body ${c.body ? new TextDecoder().decode(c.body.slice(0, 200)) : '-'}: ${wrong}`);
    }));
  }
  const health = await fetch(`${t.url}/healthz`);
  const figures = [...histogram.entries()].sort(([a], [b]) => a - b).map(([s, n]) => `${s}: ${n}`).join(', ');
  console.log(`fuzz seed=${SEED} requests=${REQUESTS} operations=${ops.length} statuses {${figures}} (replay: FUZZ_SEED=${SEED})`);
  assert.deepEqual(defects, [], `defects (replay with FUZZ_SEED=${SEED})`);
  assert.equal(health.status, 200, '/healthz answers after the fuzz');
});
