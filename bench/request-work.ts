// `npm run bench:request-work`: the work one request of each API bench scenario makes the
// server do, counted rather than timed: the promises it creates and the SQLite statements it
// runs. Counts do not depend on who else has the cores, so a before/after on a noisy machine
// reads plainly here where CPU per request (`npm run bench`) swings by 10 to 20%. Promises
// matter because an idempotent request's AsyncLocalStorage turns on Node's promise hooks for
// the whole process, and each promise then costs its hooks (docs/benchmarks.md).
//
// Each scenario runs BENCH_REQUESTS requests one after another (after a warm-up), so a commit
// group holds one transaction: BEGIN and COMMIT count once per write, where under load they
// are shared. The simulator's background steps (rows with the worker on) are counted too: the
// bench waits for them before it reads the counts. Promise hooks are on in the counted server
// (that is how promises are counted), so its timings are not figures. SQLite only.
// BENCH_BASELINE_ROOT=<a checkout of another commit> counts that commit's server beside this one.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, createAccount, freshDataDir, root, startSwitchboard } from './lib/spawn.ts';
import { scenarios, type BenchAccount, type Scenario } from './scenarios.ts';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
const WARMUP = Number(process.env.BENCH_WARMUP_REQUESTS ?? 100);
/** Long enough for the simulator's scaled steps (1 to 3 simulated seconds at 0.001) to finish. */
const SETTLE_MS = 1500;
const ONLY = process.env.BENCH_ONLY ?? '';
const BASELINE_ROOT = process.env.BENCH_BASELINE_ROOT;

interface Work { promises: number; statements: number }

async function counted(checkout: string, workerOff: boolean) {
  const dataDir = freshDataDir('request-work');
  const created = createAccount(dataDir, 'enterprise');
  cli(['accounts', 'update', created.account.id, '--rate-limit', '1000000000', '--data-dir', dataDir]);
  const file = join(mkdtempSync(join(tmpdir(), 'switchboard-request-work-')), 'counts.jsonl');
  const server = await startSwitchboard(dataDir, {
    SWITCHBOARD_SIM_TIME_SCALE: '0.001', REQUEST_WORK_FILE: file, REQUEST_WORK_ROOT: checkout,
    ...(workerOff ? { SWITCHBOARD_WORKER_CONCURRENCY: '0' } : {}),
  }, undefined, ['--require', join(root, 'bench/lib/request-work.cjs')], checkout);
  const account: BenchAccount = { sandboxKey: created.keys.sandbox, liveKey: created.keys.live, sandboxNumber: created.numbers.sandbox[0]! };
  let reads = 0;
  /** The counts since the last read (the server appends one line per SIGUSR2). */
  const read = async (): Promise<Work> => {
    process.kill(server.child.pid!, 'SIGUSR2');
    reads++;
    for (let i = 0; i < 100; i++) {
      const lines = readFileSync(file, { encoding: 'utf8', flag: 'a+' }).trim().split('\n').filter(Boolean);
      if (lines.length >= reads) return JSON.parse(lines[reads - 1]!) as Work;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error('the server did not report its counts');
  };
  return {
    account, read,
    url: server.url,
    async stop() {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function send(url: string, scenario: Scenario, account: BenchAccount, n: number): Promise<void> {
  const headers: Record<string, string> = { authorization: `Bearer ${account.sandboxKey}` };
  if (scenario.body) headers['content-type'] = 'application/json';
  if (scenario.idempotent) headers['idempotency-key'] = randomUUID();
  const res = await fetch(`${url}${scenario.path}`, { method: scenario.method, headers, body: scenario.body ? JSON.stringify(scenario.body(account, n)) : undefined });
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`${scenario.name}: ${res.status}`);
}

async function measure(checkout: string, scenario: Scenario): Promise<Work> {
  const server = await counted(checkout, scenario.workerOff === true);
  try {
    for (let i = 0; i < WARMUP; i++) await send(server.url, scenario, server.account, i);
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    await server.read();
    for (let i = 0; i < REQUESTS; i++) await send(server.url, scenario, server.account, WARMUP + i);
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const work = await server.read();
    return { promises: work.promises / REQUESTS, statements: work.statements / REQUESTS };
  } finally {
    await server.stop();
  }
}

const row = (work: Work) => `promises ${work.promises.toFixed(1).padStart(6)} | SQLite statements ${work.statements.toFixed(1).padStart(5)}`;

console.log(`Work per request: ${REQUESTS} requests one after another per scenario, after ${WARMUP} to warm up; SQLite.\n`);
for (const scenario of scenarios.filter((s) => s.name.includes(ONLY))) {
  console.log(`${scenario.name.padEnd(46)} | ${row(await measure(root, scenario))}`);
  if (BASELINE_ROOT) console.log(`${'  baseline (BENCH_BASELINE_ROOT)'.padEnd(46)} | ${row(await measure(BASELINE_ROOT, scenario))}`);
}
