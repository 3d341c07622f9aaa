// npm run bench:sip — how many concurrent recorded live calls one node carries.
//
// A real server runs in this process (startServer, SQLite unless BENCH_DATABASE_URL, fresh
// data dir; enterprise plan, so no concurrent-call cap) with one SIP trunk: SIPp on
// 127.0.0.1 as the UAS, answering every call and echoing every RTP packet back (-rtp_echo),
// so media flows both ways at 50 packets/s per direction for the whole call. For each step
// N (BENCH_SIP_STEPS, default 25,50,100,200) it POSTs N live calls at once, each recorded
// and running a flow (a `say`, then a `pause` of BENCH_SIP_HOLD seconds, then we hang up).
// Once all N are up it measures a window of BENCH_SIP_WINDOW seconds and reports:
//   - CPU per call: user+system of this process (HTTP, SIP, database, and the media worker
//     thread) over the window, as a share of one core, divided by N; SIPp's CPU beside it
//   - packet loss and late packets, from our media engine's per-call counters (RFC 3550
//     sequence accounting; late = arrived after its jitter-buffer playout)
//   - event-loop delay p99 of the main thread and of the media worker thread, and the
//     media clock's late and skipped 20 ms ticks
// A step "breaks" when a call did not complete, a packet was lost, a tick was skipped, or
// the media worker's loop delay p99 passed 20 ms (one packet time); later steps still run
// unless BENCH_SIP_STOP_AT_BREAK=1. Every wait is bounded.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { loadConfig } from '../src/config.ts';
import { startServer } from '../src/main.ts';
import { openDatabase } from '../src/store/db.ts';
import { migrateToLatest } from '../src/store/migrate.ts';
import { systemClock } from '../src/platform/clock.ts';
import { AccountService } from '../src/modules/accounts/service.ts';
import { NumberService } from '../src/modules/numbers/service.ts';
import { EventEmitter } from '../src/events/emit.ts';
import type { LiveSipCarrier } from '../src/carriers/sip/live-carrier.ts';
import { freshDataDir, freePort } from './lib/spawn.ts';
import { freeUdpPort, SCENARIOS, waitForListener } from '../test/helpers/sipp.ts';

const STEPS = (process.env.BENCH_SIP_STEPS ?? '25,50,100,200').split(',').map(Number).filter((n) => n > 0);
const HOLD = Number(process.env.BENCH_SIP_HOLD ?? 25);
const WINDOW = Number(process.env.BENCH_SIP_WINDOW ?? 10);
const STOP_AT_BREAK = process.env.BENCH_SIP_STOP_AT_BREAK === '1';
const FROM = '+14155550142';

/** user + system CPU of a process, in ms (Linux /proc). */
function cpuMsOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return NaN;
  }
}

function ownCpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `ready` every 200 ms for at most `seconds`; returns whether it became true. */
async function until(ready: () => boolean | Promise<boolean>, seconds: number): Promise<boolean> {
  for (let i = 0; i < seconds * 5; i++) {
    if (await ready()) return true;
    await sleep(200);
  }
  return ready();
}

interface StepResult {
  n: number;
  up: number;
  completed: number;
  cpuPerCallPct: number;
  sippCpuPct: number;
  received: number;
  lost: number;
  late: number;
  mainP99: number;
  workerP99: number;
  lateTicks: number;
  skippedTicks: number;
  broke: string[];
}

async function main(): Promise<void> {
  if (spawnSync('sh', ['-c', 'command -v sipp']).status !== 0) throw new Error('bench:sip needs SIPp (sip-tester); .ci/run installs it');
  const dataDir = freshDataDir('sip');
  const trunkPort = await freeUdpPort();
  const sipPort = await freeUdpPort();
  const carriersFile = join(dataDir, 'carriers.yaml');
  writeFileSync(carriersFile, [
    'sip:',
    `  listen: { host: 127.0.0.1, udp_port: ${sipPort} }`,
    '  public_host: 127.0.0.1',
    '  rtp: { port_min: 47000, port_max: 47998 }',
    '  trunks:',
    `    - { name: sipp, host: 127.0.0.1, port: ${trunkPort}, codecs: [PCMU] }`,
    '',
  ].join('\n'));
  const env = { ...process.env, DATABASE_URL: process.env.BENCH_DATABASE_URL ?? '', SWITCHBOARD_CARRIERS_FILE: carriersFile, SWITCHBOARD_LOG_LEVEL: 'warn' };
  const config = loadConfig(env, { host: '127.0.0.1', port: await freePort(), dataDir });

  // The account and its live number, written before the server starts.
  const database = openDatabase({ databaseUrl: config.databaseUrl, dataDir, poolSize: 2 });
  await migrateToLatest(database);
  const created = await new AccountService(database.db, systemClock).create({ plan: 'enterprise', name: 'bench' });
  await new NumberService(database.db, new EventEmitter()).importNumber(systemClock, {
    accountId: created.account.id, mode: 'live', phoneNumber: FROM, capabilities: ['voice'], type: 'local', country: 'US', inventory: false, voiceTrunk: 'sipp',
  });
  await database.close();

  const server = await startServer(config, { logger: false });
  const carrier = server.built.services.voiceCarriers.forMode('live') as unknown as LiveSipCarrier;
  const auth = { authorization: `Bearer ${created.keys.live}`, 'content-type': 'application/json' };
  const mainLoop = monitorEventLoopDelay({ resolution: 5 });
  mainLoop.enable();

  console.log(`bench:sip  live calls against SIPp (answers, echoes RTP), recorded, flow say + pause ${HOLD} s; ${process.env.BENCH_DATABASE_URL ? 'PostgreSQL' : 'SQLite'}; window ${WINDOW} s`);
  console.log('     N   up  done  CPU/call  SIPp CPU   received    lost  late  main p99  media p99  late/skipped ticks  verdict');
  // Warm-up, not reported: the speech engine compiles and the prompt enters its cache, as on
  // a node that has been up a while.
  await step(1, { url: server.url, auth, carrier, mainLoop, trunkPort });
  const results: StepResult[] = [];
  for (const n of STEPS) {
    const result = await step(n, { url: server.url, auth, carrier, mainLoop, trunkPort });
    results.push(result);
    console.log([
      String(n).padStart(6), String(result.up).padStart(4), String(result.completed).padStart(5),
      `${result.cpuPerCallPct.toFixed(2)}%`.padStart(9), `${result.sippCpuPct.toFixed(0)}%`.padStart(9),
      String(result.received).padStart(10), String(result.lost).padStart(7), String(result.late).padStart(5),
      `${result.mainP99.toFixed(1)} ms`.padStart(9), `${result.workerP99.toFixed(1)} ms`.padStart(10),
      `${result.lateTicks}/${result.skippedTicks}`.padStart(19), `  ${result.broke.length ? `BREAKS: ${result.broke.join('; ')}` : 'ok'}`,
    ].join(' '));
    if (result.broke.length && STOP_AT_BREAK) break;
  }
  const firstBreak = results.find((r) => r.broke.length);
  console.log(firstBreak ? `  first break at N=${firstBreak.n}` : `  no break up to N=${results.at(-1)?.n}`);
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
}

async function step(n: number, ctx: { url: string; auth: Record<string, string>; carrier: LiveSipCarrier; mainLoop: ReturnType<typeof monitorEventLoopDelay>; trunkPort: number }): Promise<StepResult> {
  const sipp = startSipp(n, ctx.trunkPort);
  await waitForListener(ctx.trunkPort, 'udp');
  const before = ctx.carrier.mediaTotals();
  await ctx.carrier.mediaEngineStats({ reset: true });
  ctx.mainLoop.reset();

  const flow = [{ say: { text: 'This call is part of a load test. Please hold.' } }, { pause: { seconds: HOLD } }];
  const placed = await Promise.all(Array.from({ length: n }, async (_, i) => {
    const res = await fetch(`${ctx.url}/v1/calls`, { method: 'POST', headers: ctx.auth, body: JSON.stringify({ from: FROM, to: `+1415555${String(1000 + i).padStart(4, '0')}`, record: true, flow, time_limit: HOLD + 60 }) });
    const body = await res.json() as { id?: string };
    return res.status === 200 ? body.id : undefined;
  }));
  const ids = placed.filter((id): id is string => id !== undefined);

  let up = 0;
  await until(async () => {
    up = (await ctx.carrier.mediaEngineStats()).sessions;
    return up >= ids.length;
  }, 60);
  const cpu0 = ownCpuMs();
  const sipp0 = cpuMsOf(sipp.child.pid!);
  const t0 = performance.now();
  await sleep(WINDOW * 1000);
  const seconds = (performance.now() - t0) / 1000;
  const cpuPerCallPct = ((ownCpuMs() - cpu0) / 10 / seconds) / Math.max(1, up);
  const sippCpuPct = (cpuMsOf(sipp.child.pid!) - sipp0) / 10 / seconds;
  const mainP99 = ctx.mainLoop.percentile(99) / 1e6;
  const engine = await ctx.carrier.mediaEngineStats();

  // Every call ends by itself when its flow runs out; then SIPp exits (each call got its BYE).
  await until(async () => (await ctx.carrier.mediaEngineStats()).sessions === 0, HOLD + 90);
  const sippExit = await Promise.race([sipp.exited, sleep(30_000).then(() => null)]);
  if (sippExit === null) sipp.child.kill('SIGKILL');
  let completed = 0;
  for (const id of ids) {
    const res = await fetch(`${ctx.url}/v1/calls/${id}`, { headers: ctx.auth });
    if (((await res.json()) as { status: string }).status === 'completed') completed++;
  }
  const after = ctx.carrier.mediaTotals();
  const received = after.packetsReceived - before.packetsReceived;
  const lost = after.packetsLost - before.packetsLost;
  const late = after.latePackets - before.latePackets;
  const broke: string[] = [];
  if (completed < n) broke.push(`${n - completed} calls not completed`);
  if (lost > 0) broke.push(`${lost} packets lost`);
  if (engine.ticker.skippedTicks > 0) broke.push(`${engine.ticker.skippedTicks} ticks skipped`);
  if (engine.loopDelayP99Ms > 20) broke.push('media loop p99 > 20 ms');
  if (sippExit !== 0) broke.push(`SIPp exited ${sippExit ?? 'late (killed)'}`);
  return {
    n, up, completed, cpuPerCallPct, sippCpuPct, received, lost, late, mainP99, workerP99: engine.loopDelayP99Ms,
    lateTicks: engine.ticker.lateTicks, skippedTicks: engine.ticker.skippedTicks, broke,
  };
}

function startSipp(n: number, port: number): { child: ChildProcess; exited: Promise<number | null> } {
  const mediaPort = 48000 + 2 * Math.floor(Math.random() * 400);
  const child = spawn('sipp', [
    '-sf', join(SCENARIOS, 'uas-answer-echo.xml'), '-i', '127.0.0.1', '-p', String(port), '-mi', '127.0.0.1', '-mp', String(mediaPort), '-rtp_echo',
    '-t', 'u1', '-m', String(n), '-nostdin', '-timeout', `${HOLD + 120}s`, '-timeout_error', '-max_socket', String(n + 50),
  ], { stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited };
}

await main();
