// Test lane: real-time (scripts/test.mjs): it measures that other tenants are answered within 4 s
// while a clock advances.
// The fuzz pass of issue 22: every tenant seeds resources whose jobs fall due on its sandbox
// clock (port-in orders, calls and messages, all with webhook URLs whose deliveries keep the
// worker busy), then advances its clock several times back to back, with and without an
// Idempotency-Key, while the other tenants do the same. One such burst froze every tenant on
// SQLite: the drain inside a request's transaction waited on a job batch the worker had
// started outside it. After every burst (and during it) a database-backed request of an
// account that takes no part must answer within a few seconds, and no advance may fail.
// Seeded: FUZZ_SEED=<n> replays a run (the seed is printed); FUZZ_ROUNDS sizes it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type CreatedAccount, type TestServer } from '../helpers/server.ts';
import { generousLimiter } from '../helpers/generous-limiter.ts';

const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const ROUNDS = Number(process.env.FUZZ_ROUNDS ?? 4);
const TENANTS = 3;
/** What "answers within a few seconds" means: below the 5 s transaction deadline that would end a freeze. */
const ANSWER_MS = 4000;
const HOOK = 'http://127.0.0.1:9/hook'; // refused at once: every delivery fails and is retried

/** mulberry32: small, fast, and the same sequence for the same seed. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  return { int: (n: number) => Math.floor(next() * n), chance: (p: number) => next() < p };
}

let t: TestServer;
let tenants: CreatedAccount[] = [];
let bystander: CreatedAccount;

before(async () => {
  t = await startTestServer({}, { limiter: generousLimiter() });
  tenants = [];
  for (let i = 0; i < TENANTS; i++) tenants.push(await t.createAccount('scale', `tenant ${i}`));
  bystander = await t.createAccount('scale', 'bystander');
});
after(async () => {
  await t?.close();
});

/** Resolves with the answer and how long it took, or with `null` when it took longer than `ms`. */
async function within<T>(ms: number, p: Promise<T>): Promise<{ value: T; ms: number } | null> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => { timer = setTimeout(() => resolve(null), ms); });
  try {
    return await Promise.race([p.then((value) => ({ value, ms: Date.now() - started })), late]);
  } finally {
    clearTimeout(timer);
  }
}

async function assertOthersServed(when: string): Promise<void> {
  const answer = await within(ANSWER_MS, t.as(bystander.keys.sandbox).get('/v1/numbers'));
  assert.ok(answer, `${when}: another account's read did not answer within ${ANSWER_MS} ms (seed ${SEED})`);
  assert.equal(answer.value.status, 200, `${when} (seed ${SEED})`);
}

test(`sandbox clock advances with and without Idempotency-Key, back to back, never stop other tenants (seed ${SEED})`, async () => {
  console.log(`clock-advance fuzz seed: ${SEED} (FUZZ_SEED=${SEED} replays it)`);
  const rng = prng(SEED);
  const ADDRESS = { street: '1 Main St', city: 'New York', region: 'NY', postal_code: '10001', country: 'US' };
  const numbers = new Set<string>();
  const freshNumber = () => {
    for (;;) {
      const n = `+1${['212', '718', '646', '917'][rng.int(4)]}${200 + rng.int(800)}${String(rng.int(10000)).padStart(4, '0')}`;
      if (!numbers.has(n)) { numbers.add(n); return n; }
    }
  };

  for (let round = 0; round < ROUNDS; round++) {
    // Seed: jobs that fall due on each tenant's clock, each with deliveries for the worker.
    await Promise.all(tenants.map(async (tenant, i) => {
      const api = t.as(tenant.keys.sandbox);
      const from = tenant.numbers.sandbox[0]!;
      const seeds = [
        api.post('/v1/numbers/ports', {
          phone_numbers: [freshNumber()], losing_carrier: 'Acme Telecom', account_number: `ACC-${round}-${i}`, pin: '1234',
          authorized_name: 'Ada Lovelace', service_address: ADDRESS, webhook_url: HOOK,
        }),
        api.post('/v1/numbers/ports', {
          phone_numbers: [freshNumber()], losing_carrier: 'Acme Telecom', account_number: `ACC-${round}-${i}b`, pin: '1234',
          authorized_name: 'Ada Lovelace', service_address: ADDRESS, webhook_url: HOOK,
        }),
        api.post('/v1/calls', { from, to: '+14155550123', webhook_url: HOOK }),
        api.post('/v1/messages', { from, to: '+14155550100', body: `round ${round}`, webhook_url: HOOK }),
      ];
      for (const res of await Promise.all(seeds)) assert.ok(res.status < 500, `seeding: ${res.status} ${JSON.stringify(res.body)} (seed ${SEED})`);
    }));

    // The burst: each tenant advances its clock 2 to 4 times back to back, keyed or not.
    const burst = tenants.flatMap((tenant, i) => Array.from({ length: 2 + rng.int(3) }, (_, j) => {
      const keyed = j === 0 || rng.chance(0.5);
      const seconds = 1 + rng.int(600);
      return t.as(tenant.keys.sandbox).post('/v1/sandbox/clock/advance', { seconds },
        keyed ? { idempotencyKey: `fuzz-${SEED}-${round}-${i}-${j}` } : {})
        .then((res) => ({ res, keyed, seconds }));
    }));
    await assertOthersServed(`round ${round}, during the burst`);
    const settled = await within(3 * ANSWER_MS, Promise.all(burst));
    assert.ok(settled, `round ${round}: the clock advances did not all answer within ${3 * ANSWER_MS} ms (seed ${SEED})`);
    for (const { res, keyed, seconds } of settled.value) {
      // 409: two advances of one clock raced for its row, or a keyed one is still in progress.
      assert.ok(res.status === 200 || res.status === 409,
        `round ${round}: advance by ${seconds} s ${keyed ? 'with' : 'without'} a key answered ${res.status} ${JSON.stringify(res.body)} (seed ${SEED})`);
    }
    await assertOthersServed(`round ${round}, after the burst`);
  }
  const ready = await t.request('GET', '/readyz');
  assert.equal(ready.status, 200);
});
