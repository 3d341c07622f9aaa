// npm run bench:all — the short form of every bench behind issue 29's figures, one after
// another, and one table of those figures, each beside its target, marked met or not met.
//
// Each bench runs as its own process (as `npm run bench:*` runs it) with short settings, its
// output passed through as it runs; this script reads its figures from the lines it prints.
// Every bench has a time limit: past it, its whole process group is killed and its figures
// read "no figure". So the run stops by itself: at most the sum of the limits (33 minutes
// with the live benches, 16 without; limits sized for a loaded shared machine, where a
// server's start alone took over 30 s).
//
// The live-peer benches (bench:sip twice, 400 calls at once and 50 new calls a second, with
// SIPp; bench:ai-live with SIPp and flite) use real RTP ports (47000-47998 in bench/sip.ts)
// and take minutes: they run only with BENCH_ALL_LIVE=1,
// else their rows say "not run". BENCH_ALL_ONLY=api,webhooks runs only the named benches.
// BENCH_DATABASE_URL is passed through to the benches that read it (PostgreSQL targets
// differ where the issue gives one for each engine).
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const tsx = join(root, 'node_modules/.bin/tsx');
const LIVE = process.env.BENCH_ALL_LIVE === '1';
const ONLY = process.env.BENCH_ALL_ONLY ? process.env.BENCH_ALL_ONLY.split(',') : null;
const POSTGRES = Boolean(process.env.BENCH_DATABASE_URL);

/** One figure of the issue: how to read it from its bench's output, and whether it meets the target. */
interface Figure {
  name: string;
  target: string;
  /** The figure from the bench's output, or null when it printed none. */
  read: (out: string) => number | null;
  unit: string;
  /** Undefined: no target for this figure alone (shown beside one that has). */
  met?: (value: number) => boolean;
}

interface Bench {
  name: string;
  script: string;
  env: Record<string, string>;
  limitSeconds: number;
  live?: boolean;
  figures: Figure[];
}

const num = (s: string | undefined): number | null => (s === undefined ? null : Number(s.replace(/,/g, '')));

/** A row of bench/api.ts: `<scenario>   | ours … | bare … | ratio 61.5% | CPU/request ours 822 µs, bare 25 µs …`. */
function apiRow(out: string, scenario: string): { ratio: number; ours: number; bare: number } | null {
  const escaped = scenario.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const m = new RegExp(`^${escaped}\\s+\\|.*\\| ratio\\s+([\\d.]+)% \\| CPU/request ours (\\d+) µs, bare (\\d+) µs`, 'm').exec(out);
  return m ? { ratio: Number(m[1]), ours: Number(m[2]), bare: Number(m[3]) } : null;
}
const cpuTimes = (scenario: string) => (out: string) => {
  const row = apiRow(out, scenario);
  return row && row.bare > 0 ? row.ours / row.bare : null;
};

const benches: Bench[] = [
  {
    name: 'api',
    script: 'bench/api.ts',
    env: { BENCH_WARMUP_SECONDS: '2', BENCH_SECONDS: '5' },
    limitSeconds: 420,
    figures: [
      { name: 'POST /v1/messages CPU per request', target: 'within 12x bare Fastify', unit: 'x bare', read: cpuTimes('POST /v1/messages'), met: (v) => v <= 12 },
      { name: 'POST /v1/calls (Idempotency-Key, worker off) CPU per request', target: 'within 8x bare Fastify', unit: 'x bare', read: cpuTimes('POST /v1/calls, worker off'), met: (v) => v <= 8 },
      { name: 'GET /v1/account req/s share of bare Fastify', target: 'at least 75%', unit: '%', read: (out) => apiRow(out, 'GET /v1/account')?.ratio ?? null, met: (v) => v >= 75 },
    ],
  },
  {
    name: 'webhooks',
    script: 'bench/webhooks.ts',
    env: { BENCH_WARMUP_SECONDS: '2', BENCH_SECONDS: '5', BENCH_PEAK_EVENTS: '1000' },
    limitSeconds: 300,
    figures: [
      { name: 'webhook emit-to-receipt p50 at 500 events/s', target: '(no target; p99 below)', unit: 'ms', read: (out) => num(/emit-to-receipt ms: p50 (\d+)/.exec(out)?.[1]) },
      { name: 'webhook emit-to-receipt p99 at 500 events/s', target: 'under 50 ms', unit: 'ms', read: (out) => num(/emit-to-receipt ms: p50 \d+\s+p99 (\d+)/.exec(out)?.[1]), met: (v) => v < 50 },
      { name: 'webhook peak deliveries/s (fan-out backlog)', target: 'kept: at least 2,138/s', unit: '/s', read: (out) => num(/^\s+(\d+) deliveries\/s/m.exec(out)?.[1]), met: (v) => v >= 2138 },
    ],
  },
  {
    name: 'smpp',
    script: 'bench/smpp.ts',
    env: { BENCH_MESSAGES: '1000' },
    limitSeconds: 240,
    figures: [
      {
        name: 'live SMS server CPU per message (one SMPP bind)', target: POSTGRES ? 'at most 3 ms (PostgreSQL)' : 'at most 1.5 ms (SQLite)', unit: 'ms',
        read: (out) => num(/server CPU\s+([\d.]+) ms per message/.exec(out)?.[1]), met: (v) => v <= (POSTGRES ? 3 : 1.5),
      },
      { name: 'live SMS end to end, every receipt applied', target: 'at least 600 messages/s', unit: 'msg/s', read: (out) => num(/end to end\s+(\d+) msg\/s/.exec(out)?.[1]), met: (v) => v >= 600 },
    ],
  },
  {
    name: 'sip',
    script: 'bench/sip.ts',
    // One step: 400 calls set up at once (the issue's figure), held briefly.
    env: { BENCH_SIP_STEPS: '400', BENCH_SIP_HOLD: '6', BENCH_SIP_WINDOW: '2' },
    limitSeconds: 360,
    live: true,
    figures: [{
      name: 'live calls: 400 set up at once against SIPp, share answered', target: 'every one answered (100%)', unit: '%',
      // `  set-up N=400: all up in … (400 answered); …`
      read: (out) => {
        const m = /set-up N=(\d+): .*?\((\d+) answered\)/.exec(out);
        return m ? (Number(m[2]) / Number(m[1])) * 100 : null;
      },
      met: (v) => v >= 100,
    }],
  },
  {
    name: 'sip-rate',
    script: 'bench/sip.ts',
    // The sustained mode: 50 new calls a second for 60 s, each a short recorded flow.
    env: { BENCH_SIP_RATE: '50', BENCH_SIP_RATE_SECONDS: '60' },
    limitSeconds: 360,
    live: true,
    figures: [{
      name: 'live calls: 50 new a second for 60 s against SIPp, share answered', target: 'every one answered (100%)', unit: '%',
      // `  sustained: 3000 calls at 50/s placed in … answered 3000/3000`
      read: (out) => {
        const m = /answered (\d+)\/(\d+)/.exec(out);
        return m ? (Number(m[1]) / Number(m[2])) * 100 : null;
      },
      met: (v) => v >= 100,
    }],
  },
  {
    name: 'ai-live',
    script: 'bench/ai-live.ts',
    env: { BENCH_AI_LIVE_CALLS: '1', BENCH_AI_LIVE_TTS: 'endpoint' },
    limitSeconds: 300,
    live: true,
    figures: [{
      name: 'AI receptionist turn p50 (caller stops to agent starts)', target: 'at most 0.7 s', unit: 's',
      read: (out) => num(/turns\s+\d+\s+p50 ([\d.]+) s/.exec(out)?.[1]), met: (v) => v <= 0.7,
    }],
  },
];

// The bench running now: stopping this script (Ctrl-C) stops its whole process group too.
let current: ReturnType<typeof spawn> | null = null;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    if (current) try { process.kill(-current.pid!, 'SIGKILL'); } catch { /* already gone */ }
    process.exit(130);
  });
}

/** Runs one bench in its own process group, passing its output through; kills the group past the limit. */
function run(bench: Bench): Promise<{ out: string; note: string | null }> {
  return new Promise((resolve) => {
    const child = spawn(tsx, [join(root, bench.script)], { cwd: root, env: { ...process.env, ...bench.env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let out = '';
    const take = (chunk: Buffer, to: NodeJS.WriteStream) => {
      out += chunk.toString('utf8');
      to.write(chunk);
    };
    child.stdout!.on('data', (c: Buffer) => take(c, process.stdout));
    child.stderr!.on('data', (c: Buffer) => take(c, process.stderr));
    current = child;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* already gone */ }
    }, bench.limitSeconds * 1000);
    child.on('close', (code) => {
      clearTimeout(timer);
      current = null;
      resolve({ out, note: timedOut ? `stopped after its ${bench.limitSeconds} s limit` : code !== 0 ? `exited ${code}` : null });
    });
  });
}

const rows: string[][] = [];
console.log(`bench:all  short form of every issue-29 bench, ${POSTGRES ? 'PostgreSQL' : 'SQLite'}; load average at start ${loadavg().map((l) => l.toFixed(1)).join(' ')}\n`);
for (const bench of benches) {
  if (ONLY && !ONLY.includes(bench.name)) continue;
  if (bench.live && !LIVE) {
    for (const f of bench.figures) rows.push([f.name, 'not run', f.target, `not run (bench:${bench.name} needs live peers and RTP ports: BENCH_ALL_LIVE=1)`]);
    continue;
  }
  console.log(`── bench:${bench.name} ${Object.entries(bench.env).map(([k, v]) => `${k}=${v}`).join(' ')}`);
  const { out, note } = await run(bench);
  for (const f of bench.figures) {
    const value = f.read(out);
    const shown = value === null || Number.isNaN(value) ? 'no figure' : `${Number.isInteger(value) ? value : value.toFixed(value < 10 ? 2 : 1)} ${f.unit}`;
    const verdict = value === null || Number.isNaN(value) ? `no figure${note ? ` (${note})` : ''}` : f.met ? (f.met(value) ? 'met' : 'NOT MET') : '—';
    rows.push([f.name, shown, f.target, verdict]);
  }
}

const header = ['figure', 'measured', 'target', 'verdict'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
console.log(`\nissue 29 figures (short runs; load average at the end ${loadavg().map((l) => l.toFixed(1)).join(' ')}: on a shared machine, read them as a trend)`);
console.log(line(header));
console.log(widths.map((w) => '-'.repeat(w)).join('  '));
for (const r of rows) console.log(line(r));
