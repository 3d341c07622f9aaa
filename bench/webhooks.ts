// npm run bench:webhooks — emit-to-receipt latency and delivery throughput of webhooks.
//
// The real server (`node bin/switchboard.js serve`, SQLite, fresh data dir) delivers to a
// receiver in this process that verifies every signature with `standardwebhooks`.
//   1. Steady: 500 events/s for 10 s (after a 2 s warm-up at the same rate, reported apart)
//      through POST /v1/webhooks/{id}/test, the public path
//      (auth, rate limit, idempotency hooks, one transaction that writes the event, its
//      delivery and its job, wake-up after commit). Latency = receipt time - the event's
//      created_at (stamped inside the emitting transaction, same machine clock).
//   2. Peak: this script opens the same store (SQLite WAL, as the CLI does) and emits 2,000
//      call.completed events through the real emit() + fan-out to 10 subscriptions = 20,000
//      deliveries; we time the server's worker draining them (first to last receipt). A
//      write from another process is found by the worker's poll (200 ms), not a wake-up, so
//      this phase measures throughput, not latency.
// Where the steady latency goes: each delivery's first attempt records when it started
// (after the job was claimed and the delivery read), so emit-to-receipt splits into queue
// (commit, wake-up, claim, read) and send (sign, POST, receiver).
// BENCH_SERVER_ROOT runs another checkout's server (say, the commit before a change) against
// this same script, so a before/after pair runs in one session on the same machine.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { createServer as createHttpServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import SQLite from 'better-sqlite3';
import { Webhook } from 'standardwebhooks';

const root = new URL('..', import.meta.url).pathname;
const serverRoot = process.env.BENCH_SERVER_ROOT ?? root;
// The peak phase emits through the server's own outbox code (its schema may differ by commit).
const from = <T>(path: string): Promise<T> => import(join(serverRoot, path)) as Promise<T>;
const { loadConfig } = await from<typeof import('../src/config.ts')>('src/config.ts');
const { openDatabase } = await from<typeof import('../src/store/db.ts')>('src/store/db.ts');
const { inTransaction } = await from<typeof import('../src/store/transaction.ts')>('src/store/transaction.ts');
const { systemClock } = await from<typeof import('../src/platform/clock.ts')>('src/platform/clock.ts');
const { JobQueue } = await from<typeof import('../src/jobs/queue.ts')>('src/jobs/queue.ts');
const { EventEmitter } = await from<typeof import('../src/events/emit.ts')>('src/events/emit.ts');
const { createFanOut } = await from<typeof import('../src/modules/webhooks/fan-out.ts')>('src/modules/webhooks/fan-out.ts');
const RATE = Number(process.env.BENCH_RATE ?? 500);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
const PEAK_EVENTS = Number(process.env.BENCH_PEAK_EVENTS ?? 2000);
const PEAK_ENDPOINTS = 10;

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

async function startServer(dataDir: string, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...(process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ') : []), join(serverRoot, 'bin/switchboard.js'), 'serve', '--port', String(port), '--data-dir', dataDir], {
    env: { ...process.env, DATABASE_URL: '', SWITCHBOARD_LOG_LEVEL: 'warn', SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE: 'false' }, stdio: ['ignore', 'ignore', 'inherit'],
  });
  // Generous (bounded) as in test/webhooks/crash.test.ts: `serve` compiles its sources through
  // tsx at every start, which took over 30 s on the shared machine under load.
  for (let i = 0; i < 1800; i++) {
    if (child.exitCode !== null) break;
    if (await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.ok, () => false)) return child;
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error('server did not start');
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-bench-webhooks-'));
  const created = spawnSync(process.execPath, [join(serverRoot, 'bin/switchboard.js'), 'accounts', 'create', '--plan', 'enterprise', '--json', '--data-dir', dataDir],
    { encoding: 'utf8', env: { ...process.env, DATABASE_URL: '' } });
  if (created.status !== 0) throw new Error(created.stderr);
  const account = JSON.parse(created.stdout) as { account: { id: string }; keys: { sandbox: string } };
  const port = await freePort();
  const server = await startServer(dataDir, port);
  const api = new Pool(`http://127.0.0.1:${port}`, { connections: 32 });
  const call = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
    const res = await api.request({ method, path, headers: { authorization: `Bearer ${account.keys.sandbox}`, 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}) });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`${method} ${path}: ${res.statusCode} ${text}`);
    return JSON.parse(text);
  };

  // The receiver: verifies every delivery, records receipt time per event id.
  const verifiers = new Map<string, Webhook>();
  const received = new Map<string, number>();
  const phase2Receipts: number[] = [];
  let unverified = 0;
  const receiver = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        verifiers.get(req.url!)!.verify(body, req.headers as Record<string, string>);
      } catch {
        unverified++;
      }
      const event = JSON.parse(body) as { id: string; type: string; created_at: string };
      if (event.type === 'webhook.test') {
        if (!received.has(event.id)) received.set(event.id, at - Date.parse(event.created_at));
      } else phase2Receipts.push(at);
      res.writeHead(200).end();
    });
  });
  receiver.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const subscribe = async (path: string, events: string[]) => {
    const wh = await call('POST', '/v1/webhooks', { url: receiverUrl + path, events });
    verifiers.set(path, new Webhook(wh.secret));
    return wh.id as string;
  };

  // Read-only: the first attempt's start per event, beside its created_at and receipt.
  const splitLatency = async (eventIds: string[]) => {
    const reader = new SQLite(join(dataDir, 'switchboard.db'), { readonly: true });
    try {
      const started = new Map<string, number>();
      const rows = reader.prepare(`SELECT d.event_id AS id, e.created_at AS created, a.attempted_at AS attempted FROM webhook_deliveries d
        JOIN events e ON e.id = d.event_id JOIN webhook_attempts a ON a.delivery_id = d.id AND a.attempt = 1 WHERE d.event_type = 'webhook.test'`).all() as Array<{ id: string; created: string; attempted: string }>;
      for (const r of rows) started.set(r.id, Date.parse(r.attempted) - Date.parse(r.created));
      const queue: number[] = [];
      const send: number[] = [];
      for (const id of eventIds) {
        const q = started.get(id);
        const total = received.get(id);
        if (q === undefined || total === undefined) continue;
        queue.push(q);
        send.push(total - q);
      }
      return { queue: queue.sort((a, b) => a - b), send: send.sort((a, b) => a - b) };
    } finally {
      reader.close();
    }
  };

  try {
    // Phase 1: steady rate through the public API. A freshly started server spends its
    // first seconds under load compiling (JIT, lazily built serializers) on the same two
    // cores; the warm-up runs at the target rate for WARMUP_SECONDS and is reported apart.
    const testEndpoint = await subscribe('/steady', ['webhook.test']);
    const runAtRate = async (seconds: number) => {
      received.clear();
      const total = Math.round(RATE * seconds);
      const httpMs: number[] = [];
      const emitted: string[] = [];
      const started = performance.now();
      let errors = 0;
      const inflight: Array<Promise<void>> = [];
      for (let i = 0; i < total; i++) {
        const due = started + (i * 1000) / RATE;
        const wait = due - performance.now();
        if (wait > 1) await new Promise((r) => setTimeout(r, wait));
        const t0 = performance.now();
        inflight.push(call('POST', `/v1/webhooks/${testEndpoint}/test`).then(
          (ev) => { emitted.push(ev.id); httpMs.push(performance.now() - t0); },
          () => { errors++; },
        ));
      }
      await Promise.all(inflight);
      const sendSeconds = (performance.now() - started) / 1000;
      for (let i = 0; i < 200 && received.size < emitted.length; i++) await new Promise((r) => setTimeout(r, 50));
      const lat = emitted.map((id) => received.get(id)).filter((v): v is number => v !== undefined).sort((a, b) => a - b);
      return { emitted, lat, http: httpMs.sort((a, b) => a - b), errors, sendSeconds, split: await splitLatency(emitted) };
    };
    const warm = await runAtRate(WARMUP_SECONDS);
    console.log(`warm-up: ${warm.emitted.length} events at ${RATE}/s, delivered ${warm.lat.length}; emit-to-receipt ms p50 ${percentile(warm.lat, 50)} p99 ${percentile(warm.lat, 99)} max ${warm.lat.at(-1)} (not counted below)`);
    const { emitted, lat, http, errors, sendSeconds, split } = await runAtRate(SECONDS);
    console.log(`steady: ${emitted.length} events at ${(emitted.length / sendSeconds).toFixed(0)}/s for ${sendSeconds.toFixed(1)} s (target ${RATE}/s), ${errors} errors`);
    console.log(`  delivered ${lat.length}/${emitted.length} (${(lat.length / sendSeconds).toFixed(0)} delivered/s), unverified signatures ${unverified}`);
    console.log(`  emit-to-receipt ms: p50 ${percentile(lat, 50)}  p99 ${percentile(lat, 99)}  max ${lat.at(-1)}`);
    console.log(`  of which queue (emit to attempt start) ms: p50 ${percentile(split.queue, 50)}  p99 ${percentile(split.queue, 99)}  max ${split.queue.at(-1)}`);
    console.log(`  of which send (attempt start to receipt) ms: p50 ${percentile(split.send, 50)}  p99 ${percentile(split.send, 99)}  max ${split.send.at(-1)}`);
    console.log(`  POST /test round trip ms: p50 ${percentile(http, 50).toFixed(1)}  p99 ${percentile(http, 99).toFixed(1)}`);

    // Phase 2: peak drain of a fan-out backlog, emitted through the real outbox from here.
    for (let i = 0; i < PEAK_ENDPOINTS; i++) await subscribe(`/peak${i}`, ['call.*']);
    const config = loadConfig({ ...process.env, DATABASE_URL: '' }, { dataDir });
    const database = openDatabase({ databaseUrl: undefined, dataDir: config.dataDir });
    const jobs = new JobQueue(database, systemClock, { concurrency: 1, pollMs: 1000, leaseMs: 30_000, onError: () => {} });
    const events = new EventEmitter();
    events.setFanOut(createFanOut({ jobs, clock: systemClock }));
    const expected = PEAK_EVENTS * PEAK_ENDPOINTS;
    const emitStart = performance.now();
    for (let batch = 0; batch < PEAK_EVENTS / 100; batch++) {
      await inTransaction(database.db, async (trx) => {
        for (let i = 0; i < 100; i++) {
          const id = `call_bench${batch * 100 + i}`;
          await events.emit(trx, { accountId: account.account.id, mode: 'sandbox', type: 'call.completed', resourceType: 'call', resourceId: id, object: { id, object: 'call', status: 'completed' }, clock: systemClock });
        }
      });
    }
    const emitSeconds = (performance.now() - emitStart) / 1000;
    await database.close();
    for (let i = 0; i < 1200 && phase2Receipts.length < expected; i++) await new Promise((r) => setTimeout(r, 50));
    const span = ((phase2Receipts.at(-1) ?? 0) - (phase2Receipts[0] ?? 0)) / 1000;
    console.log(`peak: ${PEAK_EVENTS} events x ${PEAK_ENDPOINTS} subscriptions emitted in ${emitSeconds.toFixed(2)} s; delivered ${phase2Receipts.length}/${expected}`);
    console.log(`  ${(phase2Receipts.length / span).toFixed(0)} deliveries/s (first to last receipt, ${span.toFixed(2)} s), unverified signatures ${unverified}`);
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    await api.close();
    receiver.closeAllConnections();
    receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
