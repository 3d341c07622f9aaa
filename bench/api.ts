// `npm run bench`: autocannon against Switchboard and against bare Fastify, side by side in
// one run, for every scenario in bench/scenarios.ts. Each server is warmed up first (a cold
// process spends its first seconds compiling). Prints req/s, p99, the throughput ratio
// ours/bare, and the CPU each server spent per request (read from /proc), whose ratio is
// steadier on a shared machine because it does not depend on who else had the cores.
// BENCH_DATABASE_URL=postgres://... runs on PostgreSQL instead, and adds a third server whose
// rate-limit buckets stay in memory, beside the default one whose buckets are shared through
// the database: the CPU and req/s ratio between them is what one upsert per request costs.
import autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, createAccount, freshDataDir, root, startProcess, startSwitchboard, stop } from './lib/spawn.ts';
import { scenarios, type BenchAccount, type Scenario } from './scenarios.ts';

const DURATION = Number(process.env.BENCH_SECONDS ?? 8);
const WARMUP = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
/** Run only the scenarios whose name contains this text (BENCH_ONLY='POST /v1/calls'). */
const ONLY = process.env.BENCH_ONLY ?? '';
const DATABASE_URL = process.env.BENCH_DATABASE_URL;
/** Servers on one database need one secret key (each has its own data dir). */
const store: Record<string, string> = DATABASE_URL ? { DATABASE_URL, SWITCHBOARD_SECRET_KEY: 'bench: one key for every node' } : {};

interface Result { rps: number; p99: number; non2xx: number; cpuMicrosPerRequest: number }

/** User plus system CPU of a process so far, in microseconds (Linux /proc; clock ticks of 10 ms). */
function cpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

async function load(url: string, scenario: Scenario, account: BenchAccount, auth: boolean, pid: number, seconds: number): Promise<Result> {
  let n = 0;
  const cpuBefore = cpuMicros(pid);
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [{
      method: scenario.method,
      setupRequest: (req: any) => {
        n++;
        const headers: Record<string, string> = { ...(auth ? { authorization: `Bearer ${account.sandboxKey}` } : {}) };
        if (scenario.body) {
          headers['content-type'] = 'application/json';
          req.body = JSON.stringify(scenario.body(account, n));
        }
        if (scenario.idempotent) headers['idempotency-key'] = randomUUID();
        req.headers = headers;
        return req;
      },
    }],
  } as any);
  const cpuMicrosPerRequest = (cpuMicros(pid) - cpuBefore) / Math.max(1, result.requests.total);
  return { rps: result.requests.average, p99: result.latency.p99, non2xx: result.non2xx, cpuMicrosPerRequest };
}

async function switchboard(env: Record<string, string>) {
  const dataDir = freshDataDir('api');
  const created = createAccount(dataDir, 'enterprise', store);
  // The bench measures throughput, not the limiter refusing it: raise the cap the way an
  // operator does for a customer ("caps can be raised on request").
  cli(['accounts', 'update', created.account.id, '--rate-limit', '1000000000', '--data-dir', dataDir], store);
  const account: BenchAccount = { sandboxKey: created.keys.sandbox, liveKey: created.keys.live, sandboxNumber: created.numbers.sandbox[0]! };
  const server = await startSwitchboard(dataDir, { SWITCHBOARD_LOG_LEVEL: 'warn', SWITCHBOARD_SIM_TIME_SCALE: '0.001', ...store, ...env });
  return { ...server, account };
}

const ours = await switchboard({});
const oursWorkerOff = await switchboard({ SWITCHBOARD_WORKER_CONCURRENCY: '0' });
const oursMemoryLimits = DATABASE_URL ? await switchboard({ SWITCHBOARD_RATE_LIMIT_STORE: 'memory' }) : null;
const bare = await startProcess(process.execPath, ['--import', 'tsx', join(root, 'bench/bare-server.ts')], {}, /listening (\d+)/);
const bareUrl = `http://127.0.0.1:${bare.match[1]}`;

console.log(`Switchboard API bench: ${WARMUP}s warm-up then ${DURATION}s per run, ${CONNECTIONS} connections, ${DATABASE_URL ? 'PostgreSQL' : 'SQLite'}, one process each.\n`);
try {
  for (const scenario of scenarios.filter((s) => s.name.includes(ONLY))) {
    const target = scenario.workerOff ? oursWorkerOff : ours;
    await load(`${bareUrl}/bare${scenario.path}`, scenario, target.account, false, bare.child.pid!, WARMUP);
    const b = await load(`${bareUrl}/bare${scenario.path}`, scenario, target.account, false, bare.child.pid!, DURATION);
    await load(`${target.url}${scenario.path}`, scenario, target.account, true, target.child.pid!, WARMUP);
    const o = await load(`${target.url}${scenario.path}`, scenario, target.account, true, target.child.pid!, DURATION);
    const ratio = (o.rps / b.rps) * 100;
    const cpuRatio = (b.cpuMicrosPerRequest / o.cpuMicrosPerRequest) * 100;
    console.log([
      scenario.name.padEnd(30),
      `ours ${o.rps.toFixed(0).padStart(6)} req/s p99 ${String(o.p99).padStart(4)} ms`,
      `bare ${b.rps.toFixed(0).padStart(6)} req/s p99 ${String(b.p99).padStart(4)} ms`,
      `ratio ${ratio.toFixed(1).padStart(5)}%`,
      `CPU/request ours ${o.cpuMicrosPerRequest.toFixed(0)} µs, bare ${b.cpuMicrosPerRequest.toFixed(0)} µs (bare/ours ${cpuRatio.toFixed(1)}%)`,
    ].join(' | ') + (o.non2xx ? ` | ${o.non2xx} non-2xx!` : ''));
    if (oursMemoryLimits && !scenario.workerOff) {
      await load(`${oursMemoryLimits.url}${scenario.path}`, scenario, oursMemoryLimits.account, true, oursMemoryLimits.child.pid!, WARMUP);
      const m = await load(`${oursMemoryLimits.url}${scenario.path}`, scenario, oursMemoryLimits.account, true, oursMemoryLimits.child.pid!, DURATION);
      console.log([
        '  rate limits in memory'.padEnd(30),
        `ours ${m.rps.toFixed(0).padStart(6)} req/s p99 ${String(m.p99).padStart(4)} ms`,
        `shared/memory req/s ${((o.rps / m.rps) * 100).toFixed(1)}%`,
        `CPU/request ${m.cpuMicrosPerRequest.toFixed(0)} µs; shared buckets add ${(o.cpuMicrosPerRequest - m.cpuMicrosPerRequest).toFixed(0)} µs`,
      ].join(' | ') + (m.non2xx ? ` | ${m.non2xx} non-2xx!` : ''));
    }
  }
} finally {
  await oursMemoryLimits?.stop();
  await stop(bare.child);
  await ours.stop();
  await oursWorkerOff.stop();
}
