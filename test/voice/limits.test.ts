import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { MAGIC } from './voice-helpers.ts';

let t: TestServer;

before(async () => {
  t = await startTestServer();
});
after(() => t.close());

test('a trial account gets 5 concurrent calls: of 6 simultaneous POSTs exactly 5 are created, the 6th is 429', async () => {
  const acct = await t.createAccount('trial');
  const api = t.as(acct.keys.sandbox);
  const from = acct.numbers.sandbox[0]!;
  const results = await Promise.all(Array.from({ length: 6 }, () => api.post('/v1/calls', { from, to: MAGIC.staysUp, record: false })));
  const created = results.filter((r) => r.status === 200);
  const refused = results.filter((r) => r.status === 429);
  assert.equal(created.length, 5, JSON.stringify(results.map((r) => r.status)));
  assert.equal(refused.length, 1);
  assert.equal(refused[0]!.body.code, 'concurrent_call_limit');
  assert.equal(refused[0]!.body.limit, 5);

  const list = await api.get('/v1/calls?limit=100');
  assert.equal(list.body.data.length, 5, 'nothing was created for the refused call');
  assert.equal((await api.get('/v1/account')).body.usage.concurrent_calls, 5);

  // Once one ends, there is room for one more.
  assert.equal((await api.post(`/v1/calls/${created[0]!.body.id}/hangup`)).status, 200);
  const next = await api.post('/v1/calls', { from, to: MAGIC.staysUp, record: false });
  assert.equal(next.status, 200);
  const full = await api.post('/v1/calls', { from, to: MAGIC.staysUp, record: false });
  assert.equal(full.status, 429);

  // The cap is per mode: live is a separate world (and refuses calls without a carrier anyway).
  const live = await t.as(acct.keys.live).get('/v1/account');
  assert.equal(live.body.usage.concurrent_calls, 0);
});

test('an Enterprise account has no cap', async () => {
  const acct = await t.createAccount('enterprise');
  const api = t.as(acct.keys.sandbox);
  const from = acct.numbers.sandbox[0]!;
  const results = await Promise.all(Array.from({ length: 20 }, () => api.post('/v1/calls', { from, to: MAGIC.staysUp, record: false })));
  assert.deepEqual(results.map((r) => r.status), Array(20).fill(200));
  const account = await api.get('/v1/account');
  assert.equal(account.body.limits.concurrent_calls, null);
  assert.equal(account.body.usage.concurrent_calls, 20);
});
