// Test lane: real-time (scripts/test.mjs): it kills a server in the middle of a batch and waits for
// its recovery; with 2 s job leases, a starved process lets them lapse.
// A SIGKILL in the middle of a batch of the live messaging ledger (src/store/serial-batch.ts)
// loses nothing and does nothing twice. The server kills itself (SWITCHBOARD_TEST_CRASH_IN_BATCH,
// a failpoint honoured only with SWITCHBOARD_TEST_FAILPOINTS) after the first write of a batch
// of two or more was applied and before the batch committed: a burst of `sending` moves, of
// accepted parts (`sent`), or of delivery receipts. A new process on the same store then
// finishes the work: every message ends `delivered` with each of its events exactly once, the
// SMSC saw every destination (parts accepted but not committed may go again, at most a window's
// worth: the documented at-least-once edge), and every receipt was acknowledged.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createTestStore, type TestStore } from '../helpers/database.ts';
import { startTestSmsc, type TestSmsc } from '../helpers/smsc.ts';
import { openDatabase } from '../../src/store/db.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { AccountService } from '../../src/modules/accounts/service.ts';
import { NumberService } from '../../src/modules/numbers/service.ts';
import { EventEmitter } from '../../src/events/emit.ts';

const FROM = '+14155550177';
const WINDOW = 8;
let store: TestStore;
let smsc: TestSmsc;
let carriers: string;
let liveKey: string;
/** When the last kill was seen (for the diagnosis of a repeated submission). */
let killedAt = 0;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** `password`: what the server binds with (a wrong one keeps its link down and its messages waiting). */
function spawnServer(port: number, crashIn?: 'sending' | 'part' | 'receipt', password = 'pw'): ChildProcess {
  const env: Record<string, string | undefined> = {
    ...process.env, SWITCHBOARD_LOG_LEVEL: 'error', SWITCHBOARD_CARRIERS_FILE: carriers, BATCH_SMPP_PW: password, SWITCHBOARD_WORKER_POLL_MS: '50',
    SWITCHBOARD_JOB_LEASE_MS: '2000',
    ...(crashIn ? { SWITCHBOARD_TEST_FAILPOINTS: 'true', SWITCHBOARD_TEST_CRASH_IN_BATCH: crashIn } : {}),
  };
  if (store.databaseUrl) env.DATABASE_URL = store.databaseUrl;
  else delete env.DATABASE_URL;
  return spawn(process.execPath, ['bin/switchboard.js', 'serve', '--port', String(port), '--data-dir', store.dataDir], { env, stdio: ['ignore', 'ignore', 'inherit'] });
}

async function serve(port: number, crashIn?: 'sending' | 'part' | 'receipt', password = 'pw'): Promise<ChildProcess> {
  const child = spawnServer(port, crashIn, password);
  // A busy machine can take a while to compile the sources through tsx: wait up to 3 minutes.
  for (let i = 0; i < 1800; i++) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the server exited (${child.exitCode ?? child.signalCode}) before it was ready`);
    if (await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.ok, () => false)) return child;
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error('the server did not start');
}

function exited(child: ChildProcess): Promise<NodeJS.Signals | number | null> {
  const seen = (result: NodeJS.Signals | number | null) => {
    if (result === 'SIGKILL') killedAt = Date.now();
    return result;
  };
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(seen(child.signalCode ?? child.exitCode));
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(seen(signal ?? code))));
}

before(async () => {
  store = await createTestStore();
  smsc = await startTestSmsc({ batch: 'pw' });
  carriers = join(store.dataDir, 'carriers.yaml');
  writeFileSync(carriers, `smpp:\n  - { name: batch-smsc, host: 127.0.0.1, port: ${smsc.port}, system_id: batch, password: "env:BATCH_SMPP_PW", window: ${WINDOW}, max_per_second: 1000, reconnect_min_seconds: 0.1 }\n`);
  const database = openDatabase({ databaseUrl: store.databaseUrl, dataDir: store.dataDir, poolSize: 2 });
  await migrateToLatest(database);
  const created = await new AccountService(database.db, systemClock).create({ plan: 'enterprise', name: 'batch-crash' });
  await new NumberService(database.db, new EventEmitter()).importNumber(systemClock, {
    accountId: created.account.id, mode: 'live', phoneNumber: FROM, capabilities: ['sms'], type: 'mobile', country: 'US', inventory: false,
  });
  await database.close();
  liveKey = created.keys.live;
});
after(async () => {
  await smsc.close();
  await store.drop();
});

const headers = () => ({ authorization: `Bearer ${liveKey}`, 'content-type': 'application/json' });

/** POSTs `count` live SMS at once; `answered`: the ids of those the server answered. */
async function postBurst(base: string, tag: number, count: number): Promise<{ destinations: string[]; answered: string[] }> {
  const destinations = Array.from({ length: count }, (_, i) => `+447700${tag}${String(i).padStart(5, '0')}`);
  const results = await Promise.allSettled(destinations.map(async (to, i) => {
    const res = await fetch(`${base}/v1/messages`, { method: 'POST', headers: headers(), body: JSON.stringify({ from: FROM, to, body: `batch ${tag} ${i}` }) });
    assert.equal(res.status, 200);
    return ((await res.json()) as { id: string }).id;
  }));
  return { destinations, answered: results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : [])) };
}

async function statusesOf(base: string, ids: string[]): Promise<string[]> {
  return Promise.all(ids.map(async (id) => ((await (await fetch(`${base}/v1/messages/${id}`, { headers: headers() })).json()) as { status: string }).status));
}

async function waitFor(base: string, ids: string[], status: string): Promise<void> {
  const deadline = Date.now() + 120_000; // after a SIGKILL, jobs the dead process held wait out their leases and backoff
  let statuses: string[] = [];
  while (Date.now() < deadline) {
    statuses = await statusesOf(base, ids);
    if (statuses.every((s) => s === status)) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  assert.deepEqual(statuses, ids.map(() => status));
}

/** Every message has queued, sending, sent, delivered, each exactly once (nothing applied twice, nothing lost). */
async function assertEventsOnce(base: string, ids: string[]): Promise<void> {
  for (const id of ids) {
    const res = await fetch(`${base}/v1/events?object_id=${id}&limit=100`, { headers: headers() });
    const types = ((await res.json()) as { data: { type: string }[] }).data.map((e) => e.type).sort();
    assert.deepEqual(types, ['message.delivered', 'message.queued', 'message.sending', 'message.sent'], `events of ${id}`);
  }
}

/** `stored`: how many of `destinations` have a message (a POST cut off by the kill may have none). */
async function assertSmscSawEach(stored: number, destinations: string[], submittedBefore: number): Promise<void> {
  const ours = smsc.submissions.slice(submittedBefore).map((s) => `+${s.destination}`).filter((d) => destinations.includes(d));
  assert.equal(new Set(ours).size, stored, 'the SMSC saw the destination of every stored message');
  // At-least-once: only parts the SMSC accepted in the batch that died uncommitted may go twice.
  const repeats = smsc.submissions.slice(submittedBefore).filter((s) => destinations.includes(`+${s.destination}`))
    .reduce((m, s) => m.set(s.destination, [...(m.get(s.destination) ?? []), s.at - killedAt]), new Map<string, number[]>());
  const twice = [...repeats].filter(([, at]) => at.length > 1).map(([d, at]) => `${d}: ${at.join(', ')} ms after the kill`);
  assert.ok(ours.length - stored <= WINDOW, `${ours.length - stored} duplicate submissions (window ${WINDOW}): ${twice.join('; ')}`);
  for (let i = 0; i < 100 && smsc.unacknowledgedReceipts() > 0; i++) await new Promise((r) => setTimeout(r, 100));
  assert.equal(smsc.unacknowledgedReceipts(), 0, 'every receipt was acknowledged');
}

/** The exit of a server that should kill itself; a server still alive after two minutes is killed and reported. */
async function diedByItself(server: ChildProcess): Promise<NodeJS.Signals | number | null | 'still alive'> {
  const timer = new Promise<'still alive'>((resolve) => setTimeout(() => resolve('still alive'), 120_000).unref());
  const result = await Promise.race([exited(server), timer]);
  if (result === 'still alive') {
    server.kill('SIGKILL');
    await exited(server);
  }
  return result;
}

for (const [tag, kind] of [[1, 'sending'], [2, 'part']] as const) {
  test(`SIGKILL in the middle of a batch of ${kind === 'sending' ? '`sending` moves' : 'accepted parts'}: after a restart every message is delivered, each event once`, async () => {
    const port = await freePort();
    const submittedBefore = smsc.submissions.length;
    // The messages wait first, with a link that cannot bind: the next process finds them all
    // due at its bind, so their writes come as one burst, and a burst makes batches.
    let server = await serve(port, undefined, 'wrong');
    const base = `http://127.0.0.1:${port}`;
    const { destinations, answered: ids } = await postBurst(base, tag, 30);
    assert.equal(ids.length, 30);
    server.kill('SIGKILL');
    await exited(server);
    // This one binds, takes the burst, and kills itself in the first batch of two or more.
    server = spawnServer(port, kind);
    assert.equal(await diedByItself(server), 'SIGKILL', 'the server died in the middle of a batch');
    server = await serve(port);
    try {
      await waitFor(base, ids, 'delivered');
      await assertEventsOnce(base, ids);
      await assertSmscSawEach(ids.length, destinations, submittedBefore);
    } finally {
      server.kill('SIGTERM');
      await exited(server);
    }
  });
}

test('SIGKILL in the middle of a batch of delivery receipts: after a restart every receipt is applied once', async () => {
  const port = await freePort();
  const submittedBefore = smsc.submissions.length;
  // Receipts held back until the first process is gone: the SMSC keeps them and sends them all
  // at once when the next process binds, so they arrive as one burst.
  smsc.holdReceipts = true;
  let server = await serve(port);
  const base = `http://127.0.0.1:${port}`;
  let ids: string[];
  let destinations: string[];
  try {
    ({ destinations, answered: ids } = await postBurst(base, 3, 10));
    assert.equal(ids.length, 10);
    await waitFor(base, ids, 'sent');
  } finally {
    server.kill('SIGKILL');
    await exited(server);
  }
  smsc.holdReceipts = false;
  // It binds, gets the burst and dies, maybe before it answers /readyz.
  server = spawnServer(port, 'receipt');
  assert.equal(await diedByItself(server), 'SIGKILL', 'the server died in the middle of a batch of receipts');
  server = await serve(port);
  try {
    await waitFor(base, ids, 'delivered');
    await assertEventsOnce(base, ids);
    await assertSmscSawEach(ids.length, destinations, submittedBefore);
    assert.equal(smsc.submissions.length - submittedBefore, ids.length, 'every part had committed before the kill: none went twice');
  } finally {
    server.kill('SIGTERM');
    await exited(server);
  }
});
