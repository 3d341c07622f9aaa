// npm run bench:smpp — live SMS throughput through one SMPP bind, and receipt-to-webhook latency.
//
// A real server (`node bin/switchboard.js serve`, SQLite unless BENCH_DATABASE_URL, fresh data
// dir) binds to a test SMSC in this process (the `smpp` package's server, test/helpers/smsc.ts)
// with window 50 and no rate cap. This script POSTs BENCH_MESSAGES live SMS (64 at a time) to
// distinct destinations; the SMSC accepts each and sends its delivery receipt right after
// submit_sm_resp; a webhook receiver here collects message.delivered.
// Reported:
//   - submit rate through the bind: messages / (last submit_sm - first submit_sm) at the SMSC
//   - end to end: messages / (first POST to last message.delivered webhook), every receipt applied
//   - receipt-to-webhook latency (SMSC sends deliver_sm -> webhook arrives): p50, p99
//   - server CPU per message (user+system of the server process / messages)
// BENCH_CPU_PROF=<dir>: the server writes a V8 CPU profile there when it stops (node --cpu-prof).
import type { AddressInfo } from 'node:net';
import { createServer as createHttpServer } from 'node:http';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'undici';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/store/db.ts';
import { migrateToLatest } from '../src/store/migrate.ts';
import { systemClock } from '../src/platform/clock.ts';
import { AccountService } from '../src/modules/accounts/service.ts';
import { NumberService } from '../src/modules/numbers/service.ts';
import { EventEmitter } from '../src/events/emit.ts';
import { startTestSmsc } from '../test/helpers/smsc.ts';
import { freshDataDir, startSwitchboard } from './lib/spawn.ts';
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 3000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 64);
const WINDOW = Number(process.env.BENCH_WINDOW ?? 50);
/** Messages sent and delivered first, left out of every figure (BENCH_WARMUP_MESSAGES). */
const WARMUP = Number(process.env.BENCH_WARMUP_MESSAGES ?? 300);
const FROM = '+14155550199';

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** user + system CPU of a process, in ms (Linux /proc). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

const destination = (i: number) => `+4477${String(10_000_000 + i)}`;

async function main(): Promise<void> {
  const dataDir = freshDataDir('smpp');
  const smsc = await startTestSmsc({ bench: 'pw' });
  smsc.receiptDelayMs = 0;
  const carriers = join(dataDir, 'carriers.yaml');
  writeFileSync(carriers, `smpp:\n  - { name: bench-smsc, host: 127.0.0.1, port: ${smsc.port}, system_id: bench, password: "env:BENCH_SMPP_PW", window: ${WINDOW}, max_per_second: 100000 }\n`);

  // The account and its live number, written to the store before the server starts.
  const config = loadConfig({ ...process.env, DATABASE_URL: process.env.BENCH_DATABASE_URL ?? '' }, { dataDir });
  const database = openDatabase({ databaseUrl: config.databaseUrl, dataDir, poolSize: 2 });
  await migrateToLatest(database);
  const created = await new AccountService(database.db, systemClock).create({ plan: 'enterprise', name: 'bench' });
  await new NumberService(database.db, new EventEmitter()).importNumber(systemClock, {
    accountId: created.account.id, mode: 'live', phoneNumber: FROM, capabilities: ['sms'], type: 'mobile', country: 'US', inventory: false, messagingCarrier: 'bench-smsc',
  });
  await database.close();

  const delivered = new Map<string, number>();
  const receiver = createHttpServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      const event = JSON.parse(body);
      if (event.type === 'message.delivered') delivered.set(event.data.object.to, performance.timeOrigin + performance.now());
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

  const { child: server, url: base, stop } = await startSwitchboard(dataDir, {
    DATABASE_URL: process.env.BENCH_DATABASE_URL ?? '', SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE: 'true', SWITCHBOARD_CARRIERS_FILE: carriers, BENCH_SMPP_PW: 'pw',
  }, undefined, process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []);
  while (smsc.sessions().length === 0) await new Promise((r) => setTimeout(r, 50));
  const pool = new Pool(base, { connections: CONCURRENCY });
  const auth = { authorization: `Bearer ${created.keys.live}`, 'content-type': 'application/json' };
  const hook = await pool.request({ method: 'POST', path: '/v1/webhooks', headers: auth, body: JSON.stringify({ url: hookUrl, events: ['message.delivered'] }) });
  if (hook.statusCode !== 200) throw new Error(`POST /v1/webhooks: ${hook.statusCode} ${await hook.body.text()}`);
  await hook.body.dump();

  let refused = 0;
  /** Sends messages [from, to) at CONCURRENCY, then waits until each accepted one is delivered (counted afresh). */
  const sendAll = async (from: number, to: number) => {
    refused = 0;
    delivered.clear();
    let next = from;
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (next < to) {
        const i = next++;
        const res = await pool.request({ method: 'POST', path: '/v1/messages', headers: auth, body: JSON.stringify({ from: FROM, to: destination(i), body: `bench message ${i}` }) });
        if (res.statusCode !== 200) refused++;
        await res.body.dump();
      }
    }));
    const posted = performance.timeOrigin + performance.now();
    const deadline = Date.now() + 600_000;
    while (delivered.size < to - from - refused && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    return posted;
  };
  // A warm-up the figures leave out, as the API bench has: the server's first messages also pay
  // for compiling its code and its routes' schemas, once per process, not per message.
  await sendAll(0, WARMUP);
  const warmSubmits = smsc.submissions.length;
  const cpuBefore = cpuMs(server.pid!);
  const started = performance.timeOrigin + performance.now();
  const posted = await sendAll(WARMUP, WARMUP + MESSAGES);
  const cpu = cpuMs(server.pid!) - cpuBefore;

  const measured = smsc.submissions.slice(warmSubmits);
  const submits = measured.map((s) => s.at).sort((a, b) => a - b);
  const submitSeconds = (submits.at(-1)! - submits[0]!) / 1000;
  const lastWebhook = Math.max(...delivered.values());
  const latencies = [...delivered.entries()].map(([to, at]) => at - (smsc.receiptSentAt.get(to.replace(/^\+/, '')) ?? NaN)).filter(Number.isFinite).sort((a, b) => a - b);
  const duplicates = smsc.submissions.length - new Set(smsc.submissions.map((s) => s.destination)).size;
  console.log(`bench:smpp  ${MESSAGES} live SMS after ${WARMUP} not counted, one bind, window ${WINDOW}, ${CONCURRENCY} concurrent POSTs, ${process.env.BENCH_DATABASE_URL ? 'PostgreSQL' : 'SQLite'}`);
  console.log(`  POST /v1/messages       ${(MESSAGES / ((posted - started) / 1000)).toFixed(0)} msg/s accepted (${refused} refused)`);
  console.log(`  submit_sm through bind  ${(measured.length / submitSeconds).toFixed(0)} msg/s (${measured.length} submits, ${duplicates} duplicates in the whole run)`);
  console.log(`  end to end              ${(delivered.size / ((lastWebhook - started) / 1000)).toFixed(0)} msg/s delivered with every receipt applied (${delivered.size}/${MESSAGES - refused})`);
  console.log(`  receipt -> webhook      p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms`);
  console.log(`  server CPU              ${(cpu / MESSAGES).toFixed(2)} ms per message (${(cpu / 1000).toFixed(1)} s total; ${(MESSAGES / (cpu / 1000)).toFixed(0)} msg per CPU-second)`);

  await pool.close();
  await stop();
  receiver.close();
  await smsc.close();
  rmSync(dataDir, { recursive: true, force: true });
}

await main();
