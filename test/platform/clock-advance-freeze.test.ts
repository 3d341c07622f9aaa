// Issue 22: two port-in orders with webhook URLs and one idempotent sandbox clock advance
// froze the whole server on SQLite. The drain inside the request's transaction joined a
// batch of job deletes the worker had started outside it; that batch waited for the
// connection the transaction held, and the transaction waited for the batch.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useSandboxAccount } from '../helpers/sandbox-account.ts';

const sb = useSandboxAccount();

const ADDRESS = { street: '1 Main St', city: 'New York', region: 'NY', postal_code: '10001', country: 'US' };
const order = (phone: string, account: string) => ({
  phone_numbers: [phone], losing_carrier: 'Acme Telecom', account_number: account, pin: '1234',
  authorized_name: 'Ada Lovelace', service_address: ADDRESS, webhook_url: 'http://127.0.0.1:9/hook',
});

/** Fails (instead of hanging the run) when a request takes longer than `ms`. */
async function within<T>(ms: number, what: string, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms); });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

test('two port-in orders with webhook URLs, then an idempotent clock advance: it answers, and so does everyone else', async () => {
  const api = sb.api();
  const other = await sb.server.createAccount('scale', 'bystander');
  for (let round = 0; round < 5; round++) {
    const [a, b] = await Promise.all([
      api.post('/v1/numbers/ports', order(`+1212318${9680 + round * 2}`.slice(0, 12), `ACC-${round}-1`)),
      api.post('/v1/numbers/ports', order(`+1718926${1462 + round * 2}`.slice(0, 12), `ACC-${round}-2`)),
    ]);
    assert.equal(a.status, 200, JSON.stringify(a.body));
    assert.equal(b.status, 200, JSON.stringify(b.body));
    const advanced = await within(5000, 'the idempotent clock advance', api.post('/v1/sandbox/clock/advance', { seconds: 300 }, { idempotencyKey: `repro-${round}` }));
    assert.equal(advanced.status, 200, JSON.stringify(advanced.body));
    const bystander = await within(5000, "another account's read", sb.server.as(other.keys.sandbox).get('/v1/calls'));
    assert.equal(bystander.status, 200);
  }
});

// The advance runs what fell due in their own transactions, never inside the request's: on
// SQLite one transaction around the whole drain would hold the only writer, and every other
// tenant's writes would wait for the last job. Ordering, not time: a bystander's write made
// while the drain runs is answered before the advance is.
test("an idempotent advance's jobs do not hold other accounts' writes, and its key moves the clock once", async () => {
  const api = sb.api();
  const other = await sb.server.createAccount('scale', 'writer');
  const bystander = sb.server.as(other.keys.sandbox);
  const before = (await api.get('/v1/sandbox/clock')).body.offset_seconds as number;
  for (let i = 0; i < 60; i += 10) {
    // The congested magic number holds each message on the test clock: 60 dispatches fall due at the advance.
    const sent = await Promise.all(Array.from({ length: 10 }, (_, j) => api.post('/v1/messages', { from: sb.from, to: '+15005550011', body: `drain ${i + j}` })));
    for (const res of sent) assert.equal(res.status, 200, JSON.stringify(res.body));
  }
  const order: string[] = [];
  const advance = api.post('/v1/sandbox/clock/advance', { seconds: 3600 }, { idempotencyKey: 'drain-1' })
    .then((res) => { order.push('advance'); return res; });
  await new Promise((resolve) => setTimeout(resolve, 20));
  const write = await bystander.post('/v1/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['message.delivered'] });
  order.push('bystander');
  assert.equal(write.status, 200, JSON.stringify(write.body));
  const advanced = await advance;
  assert.equal(advanced.status, 200, JSON.stringify(advanced.body));
  // The jobs that fell due ran before the answer (the drain's share and the workers' together).
  const listed = await api.get('/v1/messages?limit=100&to=%2B15005550011');
  assert.equal(listed.body.data.length, 60);
  const stillQueued = listed.body.data.filter((m: any) => m.status === 'queued');
  assert.equal(stillQueued.length, 0, `${stillQueued.length} held messages were still queued when the advance answered`);
  assert.deepEqual(order, ['bystander', 'advance'], 'the bystander waited for the whole drain');

  const replay = await api.post('/v1/sandbox/clock/advance', { seconds: 3600 }, { idempotencyKey: 'drain-1' });
  assert.equal(replay.status, 200);
  assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  assert.deepEqual(replay.body, advanced.body, 'the replay answers the same body');
  assert.equal((await api.get('/v1/sandbox/clock')).body.offset_seconds, before + 3600, 'one move for one key');
  const reused = await api.post('/v1/sandbox/clock/advance', { seconds: 60 }, { idempotencyKey: 'drain-1' });
  assert.equal(reused.status, 422, 'another body under the same key');
  assert.equal(reused.body.code, 'idempotency_key_reused');
});
