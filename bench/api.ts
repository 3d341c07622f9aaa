// `npm run bench`: autocannon against Switchboard and against bare Fastify, side by side in
// one run, for every scenario in bench/scenarios.ts. Prints req/s, p99 latency and the
// ratio ours/bare. Timings on a shared machine are noisy: read the ratio, not the numbers.
import autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { cli, createAccount, freshDataDir, root, startProcess, startSwitchboard, stop } from './lib/spawn.ts';
import { scenarios, type BenchAccount } from './scenarios.ts';

const DURATION = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);

interface Result { rps: number; p99: number; non2xx: number }

async function load(url: string, scenario: (typeof scenarios)[number], account: BenchAccount, auth: boolean): Promise<Result> {
  let n = 0;
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: DURATION,
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
  return { rps: result.requests.average, p99: result.latency.p99, non2xx: result.non2xx };
}

const dataDir = freshDataDir('api');
const created = createAccount(dataDir, 'enterprise');
// The bench measures throughput, not the limiter refusing it: raise the cap the way an
// operator does for a customer ("caps can be raised on request").
cli(['accounts', 'update', created.account.id, '--rate-limit', '1000000000', '--data-dir', dataDir]);
const account: BenchAccount = { sandboxKey: created.keys.sandbox, liveKey: created.keys.live, sandboxNumber: created.numbers.sandbox[0]! };
const ours = await startSwitchboard(dataDir, { SWITCHBOARD_LOG_LEVEL: 'warn', SWITCHBOARD_SIM_TIME_SCALE: '0.001' });
const bare = await startProcess(process.execPath, ['--import', 'tsx', join(root, 'bench/bare-server.ts')], {}, /listening (\d+)/);
const bareUrl = `http://127.0.0.1:${bare.match[1]}`;

console.log(`Switchboard API bench: ${DURATION}s per run, ${CONNECTIONS} connections, SQLite, one process each.\n`);
const rows: string[] = [];
try {
  for (const scenario of scenarios) {
    const b = await load(`${bareUrl}/bare${scenario.path}`, scenario, account, false);
    const o = await load(`${ours.url}${scenario.path}`, scenario, account, true);
    const ratio = o.rps / b.rps;
    rows.push(`${scenario.name.padEnd(28)} ours ${o.rps.toFixed(0).padStart(7)} req/s p99 ${String(o.p99).padStart(4)} ms | bare ${b.rps.toFixed(0).padStart(7)} req/s p99 ${String(b.p99).padStart(4)} ms | ratio ${(ratio * 100).toFixed(1)}%${o.non2xx ? ` | ${o.non2xx} non-2xx!` : ''}`);
    console.log(rows[rows.length - 1]);
  }
} finally {
  await stop(bare.child);
  await ours.stop();
}
