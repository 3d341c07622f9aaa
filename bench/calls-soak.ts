// `npm run bench:calls-soak`: 10,000 concurrent simulated calls on an Enterprise account.
// A spawned `switchboard serve` (SQLite, or PostgreSQL with DATABASE_URL) places them all
// as fast as the API takes them; the simulator stretches each call (ring 1 s, talk 5 s) by
// SOAK_TIME_SCALE so that they are all up at once. Reports the peak number of concurrent
// calls, the server's peak RSS (VmHWM), and checks that every call completed and that every
// call's four events (queued, ringing, answered, completed) reached a subscribed webhook
// receiver. Bounded: gives up after SOAK_DEADLINE_SECONDS.
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { cli, createAccount, freshDataDir, startSwitchboard } from './lib/spawn.ts';

const CALLS = Number(process.env.SOAK_CALLS ?? 10_000);
const SCALE = process.env.SOAK_TIME_SCALE ?? '15';
const PARALLEL = Number(process.env.SOAK_PARALLEL ?? 64);
const DEADLINE_MS = Number(process.env.SOAK_DEADLINE_SECONDS ?? 900) * 1000;
const EXPECTED = ['call.queued', 'call.ringing', 'call.answered', 'call.completed'];
const started = Date.now();
const overdue = () => Date.now() - started > DEADLINE_MS;

// A webhook receiver that only counts: event ids per call (de-duplicated, deliveries are at least once).
const received = new Map<string, Set<string>>();
const seenEvents = new Set<string>();
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const event = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    if (!seenEvents.has(event.id)) {
      seenEvents.add(event.id);
      const id = event.data.object.id as string;
      if (id.startsWith('call_')) (received.get(id) ?? received.set(id, new Set()).get(id)!).add(event.type);
    }
    res.writeHead(200).end('ok');
  });
});
receiver.keepAliveTimeout = 60_000;
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hooks`;

const dataDir = freshDataDir('calls-soak');
const created = createAccount(dataDir, 'enterprise');
cli(['accounts', 'update', created.account.id, '--rate-limit', '1000000000', '--data-dir', dataDir]);
const server = await startSwitchboard(dataDir, {
  SWITCHBOARD_SIM_TIME_SCALE: SCALE, SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE: 'true', SWITCHBOARD_WORKER_POLL_MS: '50',
});
const key = created.keys.sandbox;
const from = created.numbers.sandbox[0]!;
const api = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(server.url + path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json', 'idempotency-key': randomUUID() } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: await res.json() as any };
};

let peakConcurrent = 0;
const sampler = setInterval(() => {
  void api('GET', '/v1/account').then((r) => { peakConcurrent = Math.max(peakConcurrent, r.body.usage?.concurrent_calls ?? 0); }, () => {});
}, 250);

let exitCode = 1;
try {
  const sub = await api('POST', '/v1/webhooks', { url: receiverUrl, events: ['call.*'] });
  if (sub.status !== 200) throw new Error(`subscribing failed: ${JSON.stringify(sub.body)}`);

  console.log(`Placing ${CALLS} sandbox calls (${PARALLEL} requests in flight, SWITCHBOARD_SIM_TIME_SCALE=${SCALE}: each call lasts ${6 * Number(SCALE)} s)...`);
  const ids: string[] = [];
  const failures: string[] = [];
  let next = 0;
  const placeStart = Date.now();
  await Promise.all(Array.from({ length: PARALLEL }, async () => {
    while (next < CALLS && !overdue()) {
      next++;
      const r = await api('POST', '/v1/calls', { from, to: '+14155550100', record: false });
      if (r.status === 200) ids.push(r.body.id);
      else failures.push(`${r.status} ${r.body.code}`);
    }
  }));
  const placeSeconds = (Date.now() - placeStart) / 1000;
  console.log(`placed ${ids.length} calls in ${placeSeconds.toFixed(1)} s (${(ids.length / placeSeconds).toFixed(0)} calls/s)${failures.length ? `; ${failures.length} refused: ${failures.slice(0, 3).join(', ')}` : ''}`);

  // Wait until no call is active and every call's four events have arrived.
  const complete = () => ids.every((id) => EXPECTED.every((type) => received.get(id)?.has(type)));
  let active = Infinity;
  while (!overdue()) {
    active = (await api('GET', '/v1/account')).body.usage.concurrent_calls;
    if (active === 0 && complete()) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  clearInterval(sampler);

  let completed = 0;
  let cursor: string | null = null;
  for (let page = 0; page < CALLS / 100 + 2; page++) {
    const r = await api('GET', `/v1/calls?status=completed&limit=100${cursor ? `&starting_after=${cursor}` : ''}`);
    completed += r.body.data.length;
    cursor = r.body.next_cursor;
    if (!cursor) break;
  }
  const missing = ids.filter((id) => !EXPECTED.every((type) => received.get(id)?.has(type)));
  const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${server.child.pid}/status`, 'utf8'))?.[1];

  console.log('');
  console.log(`calls placed                 ${ids.length} / ${CALLS}`);
  console.log(`peak concurrent calls        ${peakConcurrent} (sampled every 250 ms from GET /v1/account)`);
  console.log(`calls completed (GET list)   ${completed}`);
  console.log(`calls with all 4 events      ${ids.length - missing.length} (webhook deliveries: ${seenEvents.size} distinct events)`);
  console.log(`server peak RSS (VmHWM)      ${hwm ? (Number(hwm) / 1024).toFixed(0) : '?'} MiB`);
  console.log(`total time                   ${((Date.now() - started) / 1000).toFixed(1)} s${overdue() ? ' (DEADLINE REACHED)' : ''}`);
  const ok = ids.length === CALLS && completed === CALLS && missing.length === 0 && active === 0;
  console.log(ok ? '\nOK: every call completed with its events.' : `\nFAILED: ${missing.length} calls missing events, e.g. ${missing.slice(0, 3).join(', ')}`);
  exitCode = ok ? 0 : 1;
} finally {
  clearInterval(sampler);
  await server.stop();
  receiver.closeAllConnections();
  receiver.close();
}
process.exit(exitCode);
