// Concurrency races answer as the API says, never 500 (issue 11.7). Before the fix, on
// PostgreSQL, 20 concurrent `POST /v1/webhooks/{id}/test` collided on the event sequence's
// unique index and 12 concurrent port orders in one area code picked the same temporary
// number (`numbers_phone_in_use`). Sequences and inventory picks now take turns on both
// databases; a real conflict (two orders for one number) is a 409 problem.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer, type CreatedAccount } from '../helpers/server.ts';

let t: TestServer;
let acct: CreatedAccount;

before(async () => {
  t = await startTestServer();
  acct = await t.createAccount('enterprise');
});
after(() => t.close());

const ADDRESS = { street: '1 Market St', city: 'San Francisco', region: 'CA', postal_code: '94105', country: 'US' };
const order = (phone_numbers: string[]) => ({
  phone_numbers, losing_carrier: 'Acme Telecom', account_number: 'ACME-778899', pin: '4321', authorized_name: 'Ada Lovelace', service_address: ADDRESS,
});

describe('concurrent writes', () => {
  test('20 concurrent test events on one endpoint: all 200, sequences 1 to 20', async () => {
    const api = t.as(acct.keys.sandbox);
    const wh = (await api.post('/v1/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['webhook.test'] })).body;
    const sent = await Promise.all(Array.from({ length: 20 }, () => api.post(`/v1/webhooks/${wh.id}/test`)));
    assert.deepEqual(sent.map((r) => r.status).filter((s) => s !== 200), [], JSON.stringify(sent.find((r) => r.status !== 200)?.body));
    const sequences = await Promise.all(sent.map(async (r) => (await api.get(`/v1/events/${r.body.id}`)).body.sequence as number));
    assert.deepEqual(sequences.sort((a, b) => a - b), Array.from({ length: 20 }, (_, i) => i + 1));
  });

  test('12 concurrent port orders in one area code: all 200, each with its own temporary number', async () => {
    const api = t.as(acct.keys.sandbox);
    const res = await Promise.all(Array.from({ length: 12 }, (_, i) => api.post('/v1/numbers/ports', order([`+1212777${String(1000 + i)}`]))));
    assert.deepEqual(res.map((r) => r.status).filter((s) => s !== 200), [], JSON.stringify(res.find((r) => r.status !== 200)?.body));
    const temporaries = res.map((r) => r.body.phone_numbers[0].temporary_number.phone_number as string);
    assert.equal(new Set(temporaries).size, 12, `distinct temporary numbers: ${temporaries.join(' ')}`);
  });

  test('concurrent orders for the same number: one 200, the others a 409 problem', async () => {
    const api = t.as(acct.keys.sandbox);
    const res = await Promise.all(Array.from({ length: 6 }, () => api.post('/v1/numbers/ports', order(['+12127778888']))));
    const statuses = res.map((r) => r.status).sort();
    assert.deepEqual(statuses, [200, 409, 409, 409, 409, 409], JSON.stringify(res.map((r) => r.body)));
    for (const r of res.filter((x) => x.status === 409)) {
      assert.equal(r.body.code, 'number_not_available');
      assert.ok(r.headers.get('x-request-id'));
    }
  });

  test('concurrent provisioning of one number: one 200, the others 409', async () => {
    const api = t.as(acct.keys.sandbox);
    const [free] = (await api.get('/v1/numbers/available?area_code=212&limit=1')).body.data;
    const res = await Promise.all(Array.from({ length: 6 }, () => api.post('/v1/numbers', { phone_number: free.phone_number })));
    assert.deepEqual(res.map((r) => r.status).sort(), [200, 409, 409, 409, 409, 409], JSON.stringify(res.map((r) => r.body)));
    for (const r of res.filter((x) => x.status === 409)) assert.equal(r.body.code, 'number_not_available');
  });
});
