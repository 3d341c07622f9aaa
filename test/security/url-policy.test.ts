// Issue 11.8 and 11.9: one URL policy wherever a URL is saved, and again when we connect.
// Every URL-bearing field of every request body is driven through HTTP in both modes with the
// production setting (private targets NOT allowed); a guard reads the served OpenAPI document so
// a new URL field without a row here fails. Then the table of address encodings (IPv4-mapped,
// -compatible and -translated IPv6, decimal, octal, hex, short forms, trailing dots, zone ids,
// NAT64, 6to4, Teredo) is refused in live mode while the public forms are accepted, and a flow
// answered by the customer's server cannot send the next fetch to a private address.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type CreatedAccount, type TestServer } from '../helpers/server.ts';
import type { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { startFlowServer, type FlowServer } from '../helpers/flow-server.ts';
import { MAGIC } from '../voice/voice-helpers.ts';
import { subscribeAll } from '../helpers/subscribe.ts';
import { waitForFlowEvent } from '../voice/flow-helpers.ts';
import { guardedLookup } from '../../src/modules/webhooks/url-policy.ts';
import { systemClock } from '../../src/platform/clock.ts';

type Mode = 'sandbox' | 'live';
interface Ctx { callId: string; queueId: Record<Mode, string>; from: Record<Mode, string>; numberId: Record<Mode, string>; agentId: Record<Mode, string>; webhookId: Record<Mode, string> }
/** One URL-bearing field: the request that puts `url` in it, and the field the problem must name. */
interface UrlField { op: string; field: string; request(url: string, mode: Mode, ctx: Ctx): [string, string, unknown] }

const USER = '+14155550123';
/** A URL every mode accepts without DNS: loopback is the sandbox's local development, a public literal for live. */
const GOOD: Record<Mode, string> = { sandbox: 'http://127.0.0.1:9/ok', live: 'https://93.184.215.14/ok' };
const PORT = { phone_numbers: ['+12126661234'], losing_carrier: 'Acme Telecom', account_number: 'ACME-1', pin: '4321', authorized_name: 'Ada Lovelace',
  service_address: { street: '1 Market St', city: 'San Francisco', region: 'CA', postal_code: '94105', country: 'US' } };

const FIELDS: UrlField[] = [
  { op: 'POST /v1/messages', field: 'webhook_url', request: (url, m, c) => ['POST', '/v1/messages', { from: c.from[m], to: USER, body: 'hi', webhook_url: url }] },
  { op: 'POST /v1/messages', field: 'media_urls.0', request: (url, m, c) => ['POST', '/v1/messages', { from: c.from[m], to: USER, channel: 'mms', media_urls: [url] }] },
  { op: 'POST /v1/numbers/{id}/sms', field: 'webhook_url', request: (url, m, c) => ['POST', `/v1/numbers/${c.numberId[m]}/sms`, { to: USER, body: 'hi', webhook_url: url }] },
  { op: 'POST /v1/numbers', field: 'webhook_url', request: (url) => ['POST', '/v1/numbers', { phone_number: '+14155550100', webhook_url: url }] },
  { op: 'PATCH /v1/numbers/{id}', field: 'webhook_url', request: (url, m, c) => ['PATCH', `/v1/numbers/${c.numberId[m]}`, { webhook_url: url }] },
  { op: 'PATCH /v1/numbers/{id}', field: 'voice_url', request: (url, m, c) => ['PATCH', `/v1/numbers/${c.numberId[m]}`, { voice_url: url }] },
  { op: 'PATCH /v1/numbers/{id}', field: 'voice_fallback_url', request: (url, m, c) => ['PATCH', `/v1/numbers/${c.numberId[m]}`, { voice_url: GOOD[m], voice_fallback_url: url }] },
  { op: 'PATCH /v1/numbers/{id}', field: 'voice_flow[0].gather.action_url', request: (url, m, c) => ['PATCH', `/v1/numbers/${c.numberId[m]}`, { voice_flow: [{ gather: { action_url: url } }] }] },
  { op: 'PATCH /v1/numbers/{id}', field: 'voice_flow[1].redirect.url', request: (url, m, c) => ['PATCH', `/v1/numbers/${c.numberId[m]}`, { voice_flow: [{ say: { text: 'hi' } }, { redirect: { url } }] }] },
  { op: 'POST /v1/numbers/ports', field: 'webhook_url', request: (url) => ['POST', '/v1/numbers/ports', { ...PORT, webhook_url: url }] },
  { op: 'POST /v1/calls', field: 'webhook_url', request: (url, m, c) => ['POST', '/v1/calls', { from: c.from[m], to: USER, webhook_url: url }] },
  { op: 'POST /v1/calls', field: 'answer_url', request: (url, m, c) => ['POST', '/v1/calls', { from: c.from[m], to: USER, answer_url: url }] },
  { op: 'POST /v1/calls', field: 'answer_fallback_url', request: (url, m, c) => ['POST', '/v1/calls', { from: c.from[m], to: USER, answer_url: GOOD[m], answer_fallback_url: url }] },
  { op: 'POST /v1/calls', field: 'flow[0].gather.action_url', request: (url, m, c) => ['POST', '/v1/calls', { from: c.from[m], to: USER, flow: [{ gather: { action_url: url } }] }] },
  { op: 'POST /v1/calls', field: 'flow[0].dial.action_url', request: (url, m, c) => ['POST', '/v1/calls', { from: c.from[m], to: USER, flow: [{ dial: { to: USER, action_url: url } }] }] },
  { op: 'POST /v1/calls', field: 'flow[0].play.url', request: (url, m, c) => ['POST', '/v1/calls', { from: c.from[m], to: USER, flow: [{ play: { url } }] }] },
  { op: 'POST /v1/calls', field: 'flow[0].redirect.url', request: (url, m, c) => ['POST', '/v1/calls', { from: c.from[m], to: USER, flow: [{ redirect: { url } }] }] },
  { op: 'POST /v1/calls/{id}/flow', field: 'url', request: (url, _m, c) => ['POST', `/v1/calls/${c.callId}/flow`, { url }] },
  { op: 'POST /v1/calls/{id}/flow', field: 'flow[0].gather.action_url', request: (url, _m, c) => ['POST', `/v1/calls/${c.callId}/flow`, { flow: [{ gather: { action_url: url } }] }] },
  { op: 'POST /v1/calls/{id}/flow', field: 'flow[0].redirect.url', request: (url, _m, c) => ['POST', `/v1/calls/${c.callId}/flow`, { flow: [{ redirect: { url } }] }] },
  { op: 'POST /v1/ai/agents', field: 'webhook_url', request: (url) => ['POST', '/v1/ai/agents', { name: 'Front desk', webhook_url: url }] },
  { op: 'PATCH /v1/ai/agents/{id}', field: 'webhook_url', request: (url, m, c) => ['PATCH', `/v1/ai/agents/${c.agentId[m]}`, { webhook_url: url }] },
  { op: 'POST /v1/webhooks', field: 'url', request: (url) => ['POST', '/v1/webhooks', { url }] },
  { op: 'PATCH /v1/webhooks/{id}', field: 'url', request: (url, m, c) => ['PATCH', `/v1/webhooks/${c.webhookId[m]}`, { url }] },
  { op: 'POST /v1/queues', field: 'wait_url', request: (url) => ['POST', '/v1/queues', { name: `q-${Math.random().toString(36).slice(2, 10)}`, wait_url: url }] },
  { op: 'PATCH /v1/queues/{id}', field: 'wait_url', request: (url, m, c) => ['PATCH', `/v1/queues/${c.queueId[m]}`, { wait_url: url }] },
  // Checked before the conference is looked up, as POST /v1/calls checks it: no conference is needed.
  { op: 'POST /v1/conferences/{id}/participants', field: 'webhook_url',
    request: (url, m, c) => ['POST', '/v1/conferences/conf_01jd8x0v6kf5b9w3t2q1r0p9n8/participants', { to: USER, from: c.from[m], webhook_url: url }] },
  // Checked before the call is looked up, as for a conference participant.
  { op: 'POST /v1/calls/{id}/monitor', field: 'webhook_url',
    request: (url, m, c) => ['POST', '/v1/calls/call_01jd8x0v6kf5b9w3t2q1r0p9n8/monitor', { supervisor: { to: USER, from: c.from[m] }, mode: 'listen', webhook_url: url }] },
  // A stream URL is judged as the http(s) URL of its ws(s) form.
  { op: 'POST /v1/calls/{id}/streams', field: 'url', request: (url, _m, c) => ['POST', `/v1/calls/${c.callId}/streams`, { url: url.replace(/^http/, 'ws') }] },
  { op: 'POST /v1/calls/{id}/streams', field: 'status_url', request: (url, m, c) => ['POST', `/v1/calls/${c.callId}/streams`, { url: GOOD[m].replace(/^http/, 'ws'), status_url: url }] },
];

/**
 * URL fields this server never connects to, with why: the guard below accepts them unchecked.
 * - forward_to: the `switchboard listen` CLI connects to it on the listener's own machine.
 * - source_url: a knowledge document's provenance, shown back, never fetched.
 * - inbound media_urls: the simulated sender's attachments, like a carrier's; the customer fetches them.
 */
const NEVER_FETCHED = new Set(['POST /v1/webhooks/listen forward_to', 'POST /v1/ai/agents/{id}/knowledge documents[].source_url', 'POST /v1/sandbox/inbound_messages media_urls[]']);

let t: TestServer;
let acct: CreatedAccount;
const ctx = {} as Ctx;

before(async () => {
  t = await startTestServer({ SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE: 'false', SWITCHBOARD_SIM_TIME_SCALE: '0.1' });
  acct = await t.createAccount('scale');
  // Live numbers come from the operator (`switchboard numbers import`); the test does what the CLI does.
  await t.server.built.services.numbers.importNumber(systemClock, {
    accountId: acct.account.id, mode: 'live', phoneNumber: '+14155550177', capabilities: ['voice', 'sms', 'mms'], type: 'local', country: 'US', inventory: false,
  });
  ctx.from = {} as Ctx['from'];
  ctx.numberId = {} as Ctx['numberId'];
  ctx.agentId = {} as Ctx['agentId'];
  ctx.webhookId = {} as Ctx['webhookId'];
  ctx.queueId = {} as Ctx['queueId'];
  for (const mode of ['sandbox', 'live'] as const) {
    const api = t.as(acct.keys[mode]);
    const number = (await api.get('/v1/numbers')).body.data[0];
    ctx.from[mode] = number.phone_number;
    ctx.numberId[mode] = number.id;
    ctx.agentId[mode] = (await api.post('/v1/ai/agents', { name: 'Front desk' })).body.id;
    ctx.webhookId[mode] = (await api.post('/v1/webhooks', { url: GOOD[mode] })).body.id;
    ctx.queueId[mode] = (await api.post('/v1/queues', { name: 'support' })).body.id;
    if (mode === 'sandbox') ctx.callId = (await api.post('/v1/calls', { from: ctx.from.sandbox, to: MAGIC.staysUp })).body.id;
    assert.ok(ctx.callId && ctx.numberId[mode] && ctx.agentId[mode] && ctx.webhookId[mode] && ctx.queueId[mode], `${mode} fixtures created`);
  }
});
after(() => t.close());

async function put(field: UrlField, url: string, mode: Mode) {
  const [method, path, body] = field.request(url, mode, ctx);
  return t.request(method, path, { key: acct.keys[mode], body });
}

function assertRefused(res: { status: number; body: any }, field: string, label: string): void {
  assert.equal(res.status, 422, `${label}: ${JSON.stringify(res.body)}`);
  assert.equal(res.body.code, 'webhook_url_not_allowed', label);
  assert.deepEqual(res.body.errors.map((e: any) => e.field), [field], label);
  assert.ok(res.body.detail.startsWith(`${field}: `), `${label}: the detail names the field`);
}

describe('one URL policy wherever a URL is saved (11.8)', () => {
  test('every URL field in the OpenAPI request bodies is in the table, or is one we never connect to', async () => {
    const doc = (await t.request('GET', '/v1/openapi.json')).body;
    const found = new Set<string>();
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        const schema = op?.requestBody?.content?.['application/json']?.schema;
        if (schema) for (const f of urlFields(doc, schema, '', new Set())) found.add(`${method.toUpperCase()} ${path} ${f}`);
      }
    }
    const covered = new Set(FIELDS.map((f) => `${f.op} ${f.field.replace(/\.\d+$/, '[]').replace(/\[\d+\]/g, '[]')}`));
    const missing = [...found].filter((f) => !covered.has(f) && !NEVER_FETCHED.has(f));
    assert.deepEqual(missing, [], 'URL fields without a row in FIELDS');
    // URLs inside a flow (`flow[0].dial.action_url`) are not in the document (a flow is any JSON there): every other row is.
    const insideFlows = FIELDS.filter((f) => /\[\d+\]\./.test(f.field)).length;
    assert.ok(found.size >= FIELDS.length - insideFlows, `the guard sees the URL fields (${found.size})`);
  });

  for (const mode of ['sandbox', 'live'] as const) {
    test(`${mode}: every URL field refuses http://0.0.0.0:9/ with 422 webhook_url_not_allowed naming the field`, async () => {
      for (const field of FIELDS) assertRefused(await put(field, 'http://0.0.0.0:9/', mode), field.field, `${mode} ${field.op} ${field.field}`);
    });

    test(`${mode}: every URL field refuses the encodings that passed before (IPv4-compatible IPv6, hex 0x0)`, async () => {
      for (const field of FIELDS) {
        for (const url of ['https://[::169.254.169.254]/x', 'https://0x0/x']) assertRefused(await put(field, url, mode), field.field, `${mode} ${field.op} ${field.field} ${url}`);
      }
    });

    test(`${mode}: every URL field accepts an allowed URL (whatever else the request meets)`, async () => {
      for (const field of FIELDS) {
        const res = await put(field, GOOD[mode], mode);
        assert.notEqual(res.body?.code, 'webhook_url_not_allowed', `${mode} ${field.op} ${field.field}: ${JSON.stringify(res.body)}`);
        assert.ok(res.status < 500, `${mode} ${field.op} ${field.field}: ${res.status}`);
      }
    });
  }
});

describe('address forms are normalised before the policy (11.9)', () => {
  // Live mode, https: each names a loopback, private, link-local, unspecified or metadata address.
  const REFUSED = [
    'https://127.0.0.1./h', 'https://2130706433/h', 'https://0177.0.0.1/h', 'https://0x7f.1/h', 'https://0x7f000001/h', 'https://017700000001/h',
    'https://127.1/h', 'https://0/h', 'https://0x0/h', 'https://%31%32%37.0.0.1/h', 'https://0xa9fea9fe/h', 'https://10.1/h',
    'https://[::127.0.0.1]/h', 'https://[::7f00:1]/h', 'https://[::ffff:7f00:1]/h', 'https://[::ffff:127.0.0.1]/h', 'https://[0:0:0:0:0:ffff:127.0.0.1]/h',
    'https://[::ffff:0:7f00:1]/h', 'https://[::ffff:a9fe:a9fe]/h', 'https://[::]/h', 'https://[::1]/h', 'https://[fe80::1%25eth0]/h', 'https://[fe80::1]/h',
    'https://[64:ff9b::7f00:1]/h', 'https://[64:ff9b::a00:1]/h', 'https://[64:ff9b:1::a00:1]/h', 'https://[2002:7f00:1::]/h', 'https://[2002:c0a8:101::1]/h',
    // Teredo: relay 65.54.227.120 (public), client 127.0.0.1 stored inverted.
    'https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/h', 'https://[fc00::1]/h', 'https://localhost./h',
  ];
  // The same encodings of a public address (93.184.215.14 = 0x5db8d70e), and a public IPv6 one.
  const ACCEPTED = [
    'https://93.184.215.14/h', 'https://1572394766/h', 'https://0x5db8d70e/h', 'https://93.184.215.14./h', 'https://[::ffff:93.184.215.14]/h',
    'https://[64:ff9b::5db8:d70e]/h', 'https://[2002:5db8:d70e::1]/h', 'https://[2001:0:4136:e378:8000:63bf:a247:28f1]/h', 'https://[2606:4700:4700::1111]/h',
  ];

  test('live: every encoding of a non-public address is refused, through HTTP', async () => {
    const live = t.as(acct.keys.live);
    for (const url of REFUSED) assertRefused(await live.post('/v1/webhooks', { url }), 'url', url);
  });

  test('live: the same encodings of public addresses are accepted', async () => {
    const live = t.as(acct.keys.live);
    for (const url of ACCEPTED) {
      const res = await live.post('/v1/webhooks', { url });
      assert.equal(res.status, 200, `${url}: ${JSON.stringify(res.body)}`);
    }
  });

  test('sandbox: loopback in any form is local development; private ones are refused in every form', async () => {
    const sandbox = t.as(acct.keys.sandbox);
    for (const url of ['http://127.1:9/h', 'http://2130706433:9/h', 'http://[::ffff:127.0.0.1]:9/h', 'http://[::1]:9/h']) {
      assert.equal((await sandbox.post('/v1/webhooks', { url })).status, 200, url);
    }
    for (const url of ['http://0x0:9/h', 'http://[::ffff:a00:1]/h', 'http://[64:ff9b::a9fe:a9fe]/h', 'http://[2002:a00:1::]/h', 'http://0xa9fea9fe/h']) {
      assertRefused(await sandbox.post('/v1/webhooks', { url }), 'url', url);
    }
  });
});

describe('again when we connect', () => {
  let receiver: WebhookReceiver;
  let app: FlowServer;
  before(async () => {
    receiver = await subscribeAll(t, acct.keys.sandbox);
    app = await startFlowServer();
    app.secrets.push(receiver.secrets[0]!);
  });
  after(async () => {
    await app.close();
    await receiver.close();
  });

  test('a flow answered by the customer\'s server cannot redirect the next fetch to a private address', async () => {
    app.routes.set('/answer', [{ redirect: { url: 'http://[::ffff:10.0.0.1]:9/next' } }]);
    const placed = await t.as(acct.keys.sandbox).post('/v1/calls', { from: ctx.from.sandbox, to: MAGIC.staysUp, answer_url: `${app.url}/answer` });
    assert.equal(placed.status, 200, JSON.stringify(placed.body));
    const [failed] = await waitForFlowEvent(receiver, placed.body.id, 'call.flow.failed');
    assert.equal(failed!.data.object.cause, 'unreachable');
    assert.match(failed!.data.object.detail, /not a public address/);
    assert.equal(app.requests.filter((r) => r.path === '/next').length, 0);
  });

  test('the delivery lookup refuses a host whose DNS answer is not allowed (the address checked is the address used)', async () => {
    const lookup = guardedLookup('live', 'https:', { webhookAllowPrivate: false });
    const answer = await new Promise<{ code?: string; address: unknown }>((resolve) => {
      lookup('localhost', {}, (err, address) => resolve({ code: err?.code, address }));
    });
    assert.equal(answer.code, 'EWEBHOOKURL');
    const sandbox = guardedLookup('sandbox', 'http:', { webhookAllowPrivate: false });
    const allowed = await new Promise<{ err: unknown; address: unknown }>((resolve) => {
      sandbox('localhost', {}, (err, address) => resolve({ err, address }));
    });
    assert.equal(allowed.err, null);
    assert.match(String(allowed.address), /^(127\.0\.0\.1|::1)$/);
  });
});

/** Paths of the properties named like URLs in a request schema, `[]` for array items. */
function urlFields(doc: any, schema: any, at: string, seen: Set<unknown>): string[] {
  if (!schema || typeof schema !== 'object') return [];
  if (schema.$ref) {
    const target = doc.components.schemas[schema.$ref.split('/').pop()];
    if (seen.has(target)) return [];
    return urlFields(doc, target, at, new Set([...seen, target]));
  }
  const out: string[] = [];
  for (const [name, sub] of Object.entries<any>(schema.properties ?? {})) {
    const path = at ? `${at}.${name}` : name;
    if (/url/i.test(name)) out.push(sub?.type === 'array' ? `${path}[]` : path);
    out.push(...urlFields(doc, sub, path, seen));
  }
  if (schema.items) out.push(...urlFields(doc, schema.items, `${at}[]`, seen));
  for (const key of ['anyOf', 'oneOf', 'allOf']) for (const sub of schema[key] ?? []) out.push(...urlFields(doc, sub, at, seen));
  return out;
}

