// `npm run bench`: autocannon against Switchboard and against bare Fastify, side by side in
// one run, for every scenario in bench/scenarios.ts. Each server is warmed up first (a cold
// process spends its first seconds compiling). Prints req/s, p99, the throughput ratio
// ours/bare, and the CPU each server spent per request (read from /proc), whose ratio is
// steadier on a shared machine because it does not depend on who else had the cores.
// BENCH_DATABASE_URL=postgres://... runs on PostgreSQL instead, and adds a third server whose
// rate-limit buckets stay in memory, beside the default one whose buckets are shared through
// the database: the CPU and req/s ratio between them is what one upsert per request costs.
// BENCH_METRICS=1 instead runs Switchboard with metrics off beside Switchboard with metrics on
// (a token, and a Prometheus-like scrape every 15 s), BENCH_ROUNDS rounds of one run each, in
// an order that turns every round (BENCH_METRICS_CONTROL=1 adds a second metrics-off server),
// and reports the median CPU per request of each side: what metrics cost (with
// BENCH_BASELINE_ROOT, that commit's server with metrics on runs in the same rotation).
// BENCH_BASELINE_ROOT=<a checkout of another commit> also runs that commit's server beside
// this one in the same run (the before of a before/after, under the same load), and
// BENCH_CPU_PROF=<dir> has this commit's servers write V8 CPU profiles there when they stop.
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

/** Requests each server process answered over the whole bench, warm-ups included: what a CPU profile's totals divide by. */
const answered = new Map<number, number>();

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
  answered.set(pid, (answered.get(pid) ?? 0) + result.requests.total);
  return { rps: result.requests.average, p99: result.latency.p99, non2xx: result.non2xx, cpuMicrosPerRequest };
}

const BASELINE_ROOT = process.env.BENCH_BASELINE_ROOT;
/** BENCH_CPU_PROF_INTERVAL: the profiler's sampling interval in µs (node's default, 1000, resolves little of a 50 µs request). */
const PROFILE_ARGS = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`,
  ...(process.env.BENCH_CPU_PROF_INTERVAL ? [`--cpu-prof-interval=${process.env.BENCH_CPU_PROF_INTERVAL}`] : [])] : [];

async function switchboard(env: Record<string, string>, checkout?: string) {
  const dataDir = freshDataDir('api');
  const created = createAccount(dataDir, 'enterprise', store);
  // The bench measures throughput, not the limiter refusing it: raise the cap the way an
  // operator does for a customer ("caps can be raised on request").
  cli(['accounts', 'update', created.account.id, '--rate-limit', '1000000000', '--data-dir', dataDir], store);
  const account: BenchAccount = { sandboxKey: created.keys.sandbox, liveKey: created.keys.live, sandboxNumber: created.numbers.sandbox[0]! };
  const server = await startSwitchboard(dataDir, { SWITCHBOARD_LOG_LEVEL: 'warn', SWITCHBOARD_SIM_TIME_SCALE: '0.001', ...store, ...env }, undefined,
    checkout ? [] : PROFILE_ARGS, checkout);
  return { ...server, account };
}

/** The median of a few runs: one run on two shared cores can be off by more than the cost measured. */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

if (process.env.BENCH_METRICS === '1') {
  await metricsOnOff();
  process.exit(0);
}

async function metricsOnOff(): Promise<void> {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const token = 'bench-metrics-token-0123456789';
  const off = await switchboard({});
  const on = await switchboard({ SWITCHBOARD_METRICS_TOKEN: token });
  // BENCH_BASELINE_ROOT: that commit's server with metrics on joins the rotation (a before/after
  // of what metrics cost, under the same load as this one's).
  const baselineOn = BASELINE_ROOT ? await switchboard({ SWITCHBOARD_METRICS_TOKEN: token }, BASELINE_ROOT) : null;
  // BENCH_METRICS_CONTROL=1: a second server with metrics off joins too, whose ratio to the first
  // is what this bench reads as a cost where there is none (its noise, on this machine, today).
  const control = process.env.BENCH_METRICS_CONTROL === '1' ? await switchboard({}) : null;
  const sides = { off, on, ...(baselineOn ? { 'baseline on': baselineOn } : {}), ...(control ? { 'off again': control } : {}) };
  // Scraped as Prometheus would (every 15 s by default; BENCH_SCRAPE_SECONDS): a scrape's cost is
  // per interval, not per request, so a faster scrape than production's would overstate it.
  const scrapeSeconds = Number(process.env.BENCH_SCRAPE_SECONDS ?? 15);
  const scraper = setInterval(() => {
    for (const side of [on, baselineOn]) {
      if (side) void fetch(`${side.url}/metrics`, { headers: { authorization: `Bearer ${token}` } }).then((res) => res.text()).catch(() => {});
    }
  }, scrapeSeconds * 1000);
  console.log(`Metrics on vs off: ${WARMUP}s warm-up, then ${rounds} alternating runs of ${DURATION}s each, ${CONNECTIONS} connections, ${DATABASE_URL ? 'PostgreSQL' : 'SQLite'}; medians.\n`);
  try {
    for (const scenario of scenarios.filter((s) => s.name.includes(ONLY) && !s.workerOff)) {
      for (const side of Object.values(sides)) await load(`${side.url}${scenario.path}`, scenario, side.account, true, side.child.pid!, WARMUP);
      const runs: Record<string, Result[]> = Object.fromEntries(Object.keys(sides).map((name) => [name, []]));
      for (let r = 0; r < rounds; r++) {
        // The order turns every round, so no side always runs first (after the others' idle) or last.
        const order = Object.entries(sides);
        const turned = [...order.slice(r % order.length), ...order.slice(0, r % order.length)];
        for (const [name, side] of turned) runs[name]!.push(await load(`${side.url}${scenario.path}`, scenario, side.account, true, side.child.pid!, DURATION));
      }
      const cpu = (side: Result[]) => median(side.map((x) => x.cpuMicrosPerRequest));
      const rps = (side: Result[]) => median(side.map((x) => x.rps));
      const non2xx = Object.values(runs).flat().reduce((n, x) => n + x.non2xx, 0);
      console.log([
        scenario.name.padEnd(30),
        ...Object.entries(runs).map(([name, side]) => `${name} ${rps(side).toFixed(0).padStart(6)} req/s ${cpu(side).toFixed(0).padStart(5)} µs CPU/request`),
        ...Object.keys(runs).filter((name) => name !== 'off').map((name) => `${name}/off CPU ${((cpu(runs[name]!) / cpu(runs.off!)) * 100).toFixed(1)}%`),
        `runs ${Object.entries(runs).map(([name, side]) => `${name} ${side.map((x) => x.cpuMicrosPerRequest.toFixed(0)).join('/')}`).join(', ')} µs`,
      ].join(' | ') + (non2xx ? ` | ${non2xx} non-2xx!` : ''));
    }
    if (process.env.BENCH_CPU_PROF) {
      console.log(`\nRequests answered (warm-ups included, for the profiles): ${Object.entries(sides).map(([name, side]) => `${name} ${answered.get(side.child.pid!)} (pid ${side.child.pid})`).join(', ')}`);
    }
  } finally {
    clearInterval(scraper);
    for (const side of Object.values(sides)) await side.stop();
  }
}

const ours = await switchboard({});
const oursWorkerOff = await switchboard({ SWITCHBOARD_WORKER_CONCURRENCY: '0' });
const baseline = BASELINE_ROOT ? await switchboard({}, BASELINE_ROOT) : null;
const baselineWorkerOff = BASELINE_ROOT ? await switchboard({ SWITCHBOARD_WORKER_CONCURRENCY: '0' }, BASELINE_ROOT) : null;
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
    const before = scenario.workerOff ? baselineWorkerOff : baseline;
    if (before) {
      await load(`${before.url}${scenario.path}`, scenario, before.account, true, before.child.pid!, WARMUP);
      const p = await load(`${before.url}${scenario.path}`, scenario, before.account, true, before.child.pid!, DURATION);
      console.log([
        '  baseline (BENCH_BASELINE_ROOT)'.padEnd(30),
        `ours ${p.rps.toFixed(0).padStart(6)} req/s p99 ${String(p.p99).padStart(4)} ms`,
        `ratio ${((p.rps / b.rps) * 100).toFixed(1).padStart(5)}%`,
        `CPU/request ${p.cpuMicrosPerRequest.toFixed(0)} µs (bare/baseline ${((b.cpuMicrosPerRequest / p.cpuMicrosPerRequest) * 100).toFixed(1)}%); this commit uses ${((o.cpuMicrosPerRequest / p.cpuMicrosPerRequest) * 100).toFixed(1)}% of its CPU`,
      ].join(' | ') + (p.non2xx ? ` | ${p.non2xx} non-2xx!` : ''));
    }
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
  await baseline?.stop();
  await baselineWorkerOff?.stop();
}
