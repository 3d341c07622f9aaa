// Issue 10.10 to 10.14: mistakes a strict integrator makes, each answered with a 4xx that
// says what went wrong, in one vocabulary, through the real HTTP surface.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer, type CreatedAccount } from '../helpers/server.ts';
import { FIELD_ERROR_CODES, E164_HINT } from '../../src/platform/field-errors.ts';

let t: TestServer;
let acct: CreatedAccount;
let other: CreatedAccount;

before(async () => {
  t = await startTestServer();
  acct = await t.createAccount('scale');
  other = await t.createAccount('scale');
});
after(() => t.close());

function assertProblem(res: { status: number; headers: Headers; body: any }, status: number, code: string) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
  assert.equal(res.body.code, code);
  for (const e of res.body.errors ?? []) assert.ok((FIELD_ERROR_CODES as readonly string[]).includes(e.code), `errors[].code ${e.code} is documented`);
}

async function placeCall(key: string, from: string): Promise<any> {
  const res = await t.as(key).post('/v1/calls', { from, to: '+14155550199' });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

describe('query parameters and cursors (issue 10.10)', () => {
  test('an unknown query parameter is a 400 naming it, on every list and fetch', async () => {
    const api = t.as(acct.keys.sandbox);
    const typo = await api.get('/v1/calls?stauts=failed');
    assertProblem(typo, 400, 'validation_failed');
    assert.deepEqual(typo.body.errors, [{ field: 'stauts', code: 'unknown_field', message: 'is not a known query parameter of this endpoint' }]);
    assert.match(typo.body.detail, /stauts/);
    assertProblem(await api.get('/v1/messages?limt=5'), 400, 'validation_failed');
    assertProblem(await api.get('/v1/account?verbose=1'), 400, 'validation_failed');
    assert.equal((await api.get('/v1/calls?status=failed&limit=5')).status, 200, 'declared parameters still work');
  });

  test('ending_before is refused with a pointer to starting_after', async () => {
    const res = await t.as(acct.keys.sandbox).get('/v1/calls?ending_before=call_01jd8x0v6kf5b9w3t2q1r0p9n8');
    assertProblem(res, 400, 'validation_failed');
    assert.equal(res.body.errors[0].field, 'ending_before');
    assert.match(res.body.errors[0].message, /starting_after/);
  });

  test('a starting_after that is not an item of that list in that mode is 400 invalid_cursor', async () => {
    const api = t.as(acct.keys.sandbox);
    const from = acct.numbers.sandbox[0]!;
    const calls = [await placeCall(acct.keys.sandbox, from), await placeCall(acct.keys.sandbox, from), await placeCall(acct.keys.sandbox, from)];

    const page1 = await api.get('/v1/calls?limit=2');
    assert.equal(page1.status, 200);
    assert.equal(page1.body.has_more, true);
    const page2 = await api.get(`/v1/calls?limit=2&starting_after=${page1.body.next_cursor}`);
    assert.equal(page2.status, 200, 'a real cursor pages on');
    assert.deepEqual(page2.body.data.map((c: any) => c.id), [calls[0].id]);

    const cases: Array<[string, RegExp]> = [
      ['call_zzzzzzzzzzzzzzzzzzzzzzzzzz', /not an id of this list in sandbox mode/],
      ['msg_01jd8x0v6kf5b9w3t2q1r0p9n8', /is a message id; this list pages by call ids/],
      ['garbage', /not an id of this list/],
    ];
    for (const [cursor, message] of cases) {
      const res = await api.get(`/v1/calls?starting_after=${cursor}`);
      assertProblem(res, 400, 'invalid_cursor');
      assert.equal(res.body.errors[0].field, 'starting_after');
      assert.equal(res.body.errors[0].code, 'invalid_cursor');
      assert.match(res.body.detail, message);
    }
    const otherAccount = await t.as(other.keys.sandbox).get(`/v1/calls?starting_after=${calls[2].id}`);
    assertProblem(otherAccount, 400, 'invalid_cursor');
    const liveKey = await t.as(acct.keys.live).get(`/v1/calls?starting_after=${calls[2].id}`);
    assertProblem(liveKey, 400, 'invalid_cursor');
    assert.match(liveKey.body.detail, /belongs to sandbox mode; this request used a live key/);
    assertProblem(await api.get('/v1/messages?starting_after=call_zzzzzzzzzzzzzzzzzzzzzzzzzz'), 400, 'invalid_cursor');
  });
});

describe('one validator, one message per kind of mistake (issue 10.11)', () => {
  test('a bad phone number reads the same on every endpoint, with the E.164 hint', async () => {
    const api = t.as(acct.keys.sandbox);
    const from = acct.numbers.sandbox[0]!;
    const attempts = [
      await api.post('/v1/calls', { from, to: '415-555-0100' }),
      await api.post('/v1/messages', { from, to: '415-555-0100', body: 'hi' }),
      await api.post('/v1/numbers/ports', { phone_numbers: ['415-555-0100'], losing_carrier: 'Acme', account_number: '1', authorized_name: 'Ada', service_address: { street: '1 Market St', city: 'SF', region: 'CA', postal_code: '94105', country: 'US' } }),
    ];
    for (const res of attempts) {
      assertProblem(res, 400, 'validation_failed');
      const phone = res.body.errors.find((e: any) => e.code === 'invalid_phone_number');
      assert.ok(phone, JSON.stringify(res.body.errors));
      assert.equal(phone.message, E164_HINT);
    }
    const spaced = await api.post('/v1/calls', { from, to: '+1 415 555 0100' });
    assert.deepEqual(spaced.body.errors, [{ field: 'to', code: 'invalid_phone_number', message: `${E164_HINT}; did you mean +14155550100?` }]);
    const sms = await api.post('/v1/messages', { from, to: '+1 415 555 0100', body: 'hi' });
    assert.deepEqual(sms.body.errors, spaced.body.errors, 'the same words on calls and messages');
    const listed = await api.get('/v1/messages?to=415-555');
    assert.equal(listed.body.errors[0].code, 'invalid_phone_number');
  });

  test('an enum error lists the allowed values; codes are ours, never validator keywords', async () => {
    const api = t.as(acct.keys.sandbox);
    const status = await api.get('/v1/calls?status=done');
    assertProblem(status, 400, 'validation_failed');
    assert.deepEqual(status.body.errors[0], { field: 'status', code: 'invalid_value', message: 'must be one of: queued, ringing, in_progress, completed, busy, no_answer, failed, canceled' });
    const channel = await api.post('/v1/messages', { from: acct.numbers.sandbox[0], to: '+14155550100', body: 'x', channel: 'fax' });
    assert.match(channel.body.errors.find((e: any) => e.field === 'channel').message, /^must be one of: sms, mms, whatsapp$/);

    const mixed = await api.post('/v1/keys', { name: '', scopes: 'all', colour: 'red', allowed_ips: ['nope'] });
    assertProblem(mixed, 400, 'validation_failed');
    const byField = Object.fromEntries(mixed.body.errors.map((e: any) => [e.field, e.code]));
    assert.deepEqual(byField, { name: 'too_short', scopes: 'invalid_type', colour: 'unknown_field' });
    const raw = ['anyOf', 'oneOf', 'additionalProperties', 'pattern', 'minLength', 'type', 'enum', 'format'];
    for (const e of mixed.body.errors) assert.ok(!raw.includes(e.code));
    const limit = await api.get('/v1/keys?limit=1000');
    assert.deepEqual(limit.body.errors, [{ field: 'limit', code: 'too_large', message: 'must be at most 100' }]);
  });

  test('a JSON array or scalar body is a body-level error, not a field called body', async () => {
    for (const raw of ['[1, 2]', '"call me"', '42', 'null']) {
      const res = await t.request('POST', '/v1/calls', { key: acct.keys.sandbox, raw });
      assertProblem(res, 400, 'validation_failed');
      if (raw === 'null') continue; // JSON null is "no body": the missing fields are named
      assert.match(res.body.detail, /^The request body must be a JSON object, not an? (array|string|number)\.$/);
      assert.equal(res.body.errors, undefined, JSON.stringify(res.body));
    }
  });

  test('invalid UTF-8 in a JSON body is a 400', async () => {
    const bytes = Buffer.concat([Buffer.from('{"name": "caf'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
    const res = await fetch(`${t.url}/v1/keys`, {
      method: 'POST', body: bytes,
      headers: { authorization: `Bearer ${acct.keys.sandbox}`, 'content-type': 'application/json' },
    });
    assert.equal(res.status, 400);
    assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
    const body = await res.json() as any;
    assert.equal(body.code, 'malformed_json');
    assert.match(body.detail, /UTF-8/);
    const keys = await t.as(acct.keys.sandbox).get('/v1/keys?limit=100');
    assert.ok(!keys.body.data.some((k: any) => String(k.name).includes('\ufffd')), 'nothing was created from the mangled text');
  });
});

describe('body-less actions (issue 10.12)', () => {
  test('accept an empty body sent with Content-Type: application/json', async () => {
    const call = await placeCall(acct.keys.sandbox, acct.numbers.sandbox[0]!);
    const hangup = await t.request('POST', `/v1/calls/${call.id}/hangup`, { key: acct.keys.sandbox, raw: '', headers: { 'content-type': 'application/json' } });
    assert.equal(hangup.status, 200, JSON.stringify(hangup.body));
    assert.ok(['canceled', 'completed'].includes(hangup.body.status));

    const created = await t.as(acct.keys.sandbox).post('/v1/keys', { name: 'to revoke' });
    const revoke = await t.request('POST', `/v1/keys/${created.body.id}/revoke`, { key: acct.keys.sandbox, raw: '', headers: { 'content-type': 'application/json; charset=utf-8' } });
    assert.equal(revoke.status, 200, JSON.stringify(revoke.body));
    assert.equal(revoke.body.status, 'revoked');

    const rotate = await t.request('POST', '/v1/webhooks/default_secret/rotate', { key: acct.keys.sandbox, raw: '', headers: { 'content-type': 'application/json' } });
    assert.equal(rotate.status, 200, 'an action whose fields are all optional takes an empty body as {}');
  });

  test('a field sent to an action without a body is a 400 naming it, and nothing happens', async () => {
    // +15005550004 answers and stays up: only a hang-up ends it.
    const call = (await t.as(acct.keys.sandbox).post('/v1/calls', { from: acct.numbers.sandbox[0]!, to: '+15005550004' })).body;
    const hangup = await t.as(acct.keys.sandbox).post(`/v1/calls/${call.id}/hangup`, { x: 1, reason: 'done' });
    assertProblem(hangup, 400, 'validation_failed');
    assert.deepEqual(hangup.body.errors.map((e: any) => [e.field, e.code]), [['x', 'unknown_field'], ['reason', 'unknown_field']]);
    assert.match(hangup.body.detail, /takes no request body.*x, reason/);
    assert.ok(!['canceled', 'completed'].includes((await t.as(acct.keys.sandbox).get(`/v1/calls/${call.id}`)).body.status), 'the call was not hung up');
    assert.equal((await t.as(acct.keys.sandbox).post(`/v1/calls/${call.id}/hangup`)).status, 200);

    const created = await t.as(acct.keys.sandbox).post('/v1/keys', { name: 'kept' });
    const revoke = await t.as(acct.keys.sandbox).post(`/v1/keys/${created.body.id}/revoke`, [1]);
    assertProblem(revoke, 400, 'validation_failed');
    assert.match(revoke.body.detail, /not an array/);
    assert.equal((await t.as(acct.keys.sandbox).post(`/v1/keys/${created.body.id}/revoke`, {})).body.status, 'revoked', '{} is no field at all');
  });
});

describe('404s and 405s that say what went wrong (issue 10.13)', () => {
  test('an id of the other mode, of another kind, or a phone number where an id belongs', async () => {
    const call = await placeCall(acct.keys.sandbox, acct.numbers.sandbox[0]!);
    const live = await t.as(acct.keys.live).get(`/v1/calls/${call.id}`);
    assertProblem(live, 404, 'not_found');
    assert.equal(live.body.detail, `The call "${call.id}" exists in sandbox mode; this request used a live key (sb_live_...). Use a sandbox key (sb_test_...) to reach it.`);

    const otherAccount = await t.as(other.keys.sandbox).get(`/v1/calls/${call.id}`);
    assertProblem(otherAccount, 404, 'not_found');
    assert.doesNotMatch(otherAccount.body.detail, /sandbox mode;/, 'another account learns nothing');

    const kind = await t.as(acct.keys.sandbox).get('/v1/calls/msg_01jd8x0v6kf5b9w3t2q1r0p9n8');
    assertProblem(kind, 404, 'not_found');
    assert.equal(kind.body.detail, '"msg_01jd8x0v6kf5b9w3t2q1r0p9n8" is a message id; this endpoint takes call ids (call_...).');

    const phone = await t.as(acct.keys.sandbox).get('/v1/numbers/%2B14155550100');
    assertProblem(phone, 404, 'not_found');
    assert.match(phone.body.detail, /^"\+14155550100" is a phone number; this endpoint takes number ids \(num_\.\.\.\)\. Find the number's id with GET \/v1\/numbers\?phone_number=%2B14155550100\.$/);

    const start = await t.as(acct.keys.sandbox).post(`/v1/recordings/${call.id}/start`, {});
    assertProblem(start, 404, 'not_found');
    assert.match(start.body.detail, new RegExp(`is a call id; this endpoint takes recording ids \\(rec_\\.\\.\\.\\)\\. To record a call, use POST /v1/calls/${call.id}/recordings`));

    const plain = await t.as(acct.keys.sandbox).get('/v1/calls/call_zzzzzzzzzzzzzzzzzzzzzzzzzz');
    assertProblem(plain, 404, 'not_found');
    assert.match(plain.body.detail, /^No call with id "call_zzzzzzzzzzzzzzzzzzzzzzzzzz" exists in this mode\.$/);
  });

  // issue 10.13: each 405 says which endpoint does the job, with the Allow header.
  test('a 405 names the endpoint that does the job', async () => {
    const api = t.as(acct.keys.sandbox);
    const id = '01jd8x0v6kf5b9w3t2q1r0p9n8';
    const cases: Array<[method: string, path: string, allow: string, points: RegExp]> = [
      ['DELETE', `/v1/keys/key_${id}`, 'GET, PATCH', new RegExp(`use POST /v1/keys/key_${id}/revoke`)],
      ['DELETE', `/v1/calls/call_${id}`, 'GET', new RegExp(`use POST /v1/calls/call_${id}/hangup`)],
      ['PATCH', `/v1/calls/call_${id}`, 'GET', new RegExp(`use POST /v1/calls/call_${id}/flow; .*POST /v1/calls/call_${id}/transfer`)],
      ['POST', '/v1/recordings', 'GET', /use POST \/v1\/calls\/\{id\}\/recordings; GET \/v1\/calls\/\{id\}\/recordings lists/],
      ['POST', `/v1/recordings/rec_${id}`, 'DELETE, GET', new RegExp(`POST /v1/recordings/rec_${id}/start, /pause or /stop`)],
      ['DELETE', `/v1/calls/call_${id}/recordings`, 'GET, POST', new RegExp(`GET /v1/calls/call_${id}/recordings lists the call's recordings; delete each with DELETE /v1/recordings/\\{id\\}`)],
      ['PATCH', `/v1/calls/call_${id}/recordings`, 'GET, POST', new RegExp(`GET /v1/calls/call_${id}/recordings lists the call's recordings`)],
      ['DELETE', `/v1/messages/msg_${id}`, 'GET', new RegExp(`use POST /v1/messages/msg_${id}/cancel`)],
      ['DELETE', `/v1/numbers/ports/port_${id}`, 'GET, PATCH', new RegExp(`use POST /v1/numbers/ports/port_${id}/cancel`)],
      ['PUT', `/v1/numbers/num_${id}`, 'DELETE, GET, PATCH', /use PATCH with just those fields/],
    ];
    for (const [method, path, allow, points] of cases) {
      const res = await t.request(method, path, { key: acct.keys.sandbox, body: method === 'DELETE' ? undefined : {} });
      assertProblem(res, 405, 'method_not_allowed');
      assert.match(res.body.detail, points, `${method} ${path}`);
      assert.equal(res.headers.get('allow'), allow, `${method} ${path}`);
    }
    // A POST to a recording's start with a call id is a 404 (it is a route, the id is the
    // mistake) that points to the endpoint recording a call: see the 404 test above.
    const start = await api.post(`/v1/recordings/call_${id}/start`, {});
    assertProblem(start, 404, 'not_found');
    assert.match(start.body.detail, new RegExp(`To record a call, use POST /v1/calls/call_${id}/recordings; a call's recordings are listed by GET /v1/calls/call_${id}/recordings\\.`));
  });
});

describe('finishing actions repeat safely (issue 10.14)', () => {
  test('hanging up an ended call, revoking a revoked key, canceling a canceled port: 200 with the resource, unchanged, and no second event', async () => {
    const api = t.as(acct.keys.sandbox);
    const call = (await api.post('/v1/calls', { from: acct.numbers.sandbox[0]!, to: '+15005550004' })).body;
    const ended = await api.post(`/v1/calls/${call.id}/hangup`);
    assert.equal(ended.status, 200, JSON.stringify(ended.body));
    const again = await api.post(`/v1/calls/${call.id}/hangup`);
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, ended.body);

    const key = (await api.post('/v1/keys', { name: 'twice' })).body;
    const revoked = await api.post(`/v1/keys/${key.id}/revoke`);
    assert.equal(revoked.status, 200);
    const revokedAgain = await api.post(`/v1/keys/${key.id}/revoke`);
    assert.equal(revokedAgain.status, 200, JSON.stringify(revokedAgain.body));
    assert.deepEqual(revokedAgain.body, revoked.body);

    const port = (await api.post('/v1/numbers/ports', {
      phone_numbers: ['+13036661700'], losing_carrier: 'Acme Telecom', account_number: 'ACME-778899', pin: '4321', authorized_name: 'Ada Lovelace',
      service_address: { street: '1 Main St', city: 'Denver', region: 'CO', postal_code: '80202', country: 'US' },
    })).body;
    const canceled = await api.post(`/v1/numbers/ports/${port.id}/cancel`);
    assert.equal(canceled.status, 200, JSON.stringify(canceled.body));
    const canceledAgain = await api.post(`/v1/numbers/ports/${port.id}/cancel`);
    assert.equal(canceledAgain.status, 200);
    assert.deepEqual(canceledAgain.body, canceled.body);
    const events = await api.get(`/v1/events?object_id=${port.id}&type=number.port.canceled`);
    assert.equal(events.body.data.length, 1, 'one number.port.canceled');
    const callEnds = await api.get(`/v1/events?object_id=${call.id}&type=call.completed`);
    assert.equal(callEnds.body.data.length, 1, 'one call.completed');
  });
});
