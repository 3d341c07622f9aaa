// npm run bench:sip — how many concurrent recorded live calls one node carries.
//
// A real server runs in this process (startServer, SQLite unless BENCH_DATABASE_URL, fresh
// data dir; enterprise plan, so no concurrent-call cap) with BENCH_SIP_PEERS SIP trunks
// (default 8), each a SIPp on 127.0.0.1 as the UAS with its own SIP and media port,
// answering every call and echoing every RTP packet back (-rtp_echo), so media flows both
// ways at 50 packets/s per direction for the whole call. Calls are spread round-robin over
// the peers (one live number bound to each trunk). Why several: SIPp's echo is one socket
// read by one thread for all of its calls, and no SIPp option sizes that socket's receive
// buffer (-rtp_buffsize applies to its rtpstream sockets only), so one SIPp carrying 200
// calls (10,000 packets/s into a 208 KiB buffer, about 27 ms of slack) overflowed whenever
// the shared machine descheduled it, and the bench measured SIPp, not us. For each step
// N (BENCH_SIP_STEPS, default 25,50,100,200) it POSTs N live calls at once, each recorded
// and running a flow (a `say`, then a `pause` of BENCH_SIP_HOLD seconds, then we hang up).
// Once all N are up it measures a window of BENCH_SIP_WINDOW seconds and reports:
//   - CPU per call: user+system of this process (HTTP, SIP, database, and the media worker
//     thread) over the window, as a share of one core, divided by N; SIPp's CPU beside it
//   - packet loss and late packets, from our media engine's per-call counters (RFC 3550
//     sequence accounting over the echoed stream: a packet we sent that SIPp did not echo,
//     or whose echo we did not receive, is lost; late = arrived after its jitter-buffer
//     playout), and beside it the kernel's drops per side (udp-drops.ts), which say whose
//     receive buffer a lost packet died in
//   - event-loop delay p99 over the window of the main thread and of the media worker
//     threads (the worst of them; the engine runs one per core), and the media clocks'
//     late and skipped 20 ms ticks over the whole step (N calls set up at once, the
//     window, and N calls ending at once)
// A step "breaks" when a call did not complete, a packet was lost, a tick was skipped, or
// a media worker's loop delay p99 passed 20 ms (one packet time) in the window; later
// steps still run unless BENCH_SIP_STOP_AT_BREAK=1. Every wait is bounded.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { LiveSipCarrier } from '../src/carriers/sip/live-carrier.ts';
import { freshDataDir } from './lib/spawn.ts';
import { startLiveBenchServer } from './lib/live-server.ts';
import { freeUdpPort, SCENARIOS, waitForListener } from '../test/helpers/sipp.ts';
import { UdpDropSampler } from './lib/udp-drops.ts';
import { cpuMsOf, ownCpuMs, sleep, until } from './lib/measure.ts';

const STEPS = (process.env.BENCH_SIP_STEPS ?? '25,50,100,200').split(',').map(Number).filter((n) => n > 0);
const HOLD = Number(process.env.BENCH_SIP_HOLD ?? 25);
const WINDOW = Number(process.env.BENCH_SIP_WINDOW ?? 10);
/** BENCH_SIP_RATE > 0: the sustained mode (see `sustained`) instead of the steps. */
const RATE = Number(process.env.BENCH_SIP_RATE ?? 0);
const RATE_SECONDS = Number(process.env.BENCH_SIP_RATE_SECONDS ?? 60);
const RATE_HOLD = Number(process.env.BENCH_SIP_RATE_HOLD ?? 3);
const STOP_AT_BREAK = process.env.BENCH_SIP_STOP_AT_BREAK === '1';
const PEERS = Math.max(1, Math.min(32, Number(process.env.BENCH_SIP_PEERS ?? 8)));
/** rtp.workers for the node (unset: the engine's default, one per core). */
const WORKERS = process.env.BENCH_SIP_WORKERS ? Number(process.env.BENCH_SIP_WORKERS) : undefined;
/** The live number bound to peer j's trunk. */
const fromOf = (peer: number) => `+1415555${String(142 + peer).padStart(4, '0')}`;
/** Our RTP ports (BENCH_SIP_RTP_MIN/MAX) and where SIPp's media ports start (BENCH_SIP_SIPP_MEDIA_MIN, 900 ports): parallel benches need their own ranges. */
const RTP_MIN = Number(process.env.BENCH_SIP_RTP_MIN ?? 47000);
const RTP_MAX = Number(process.env.BENCH_SIP_RTP_MAX ?? 47998);
const SIPP_MEDIA_MIN = Number(process.env.BENCH_SIP_SIPP_MEDIA_MIN ?? 48000);
const SIPP_MEDIA_SPAN = Number(process.env.BENCH_SIP_SIPP_MEDIA_SPAN ?? 900);

interface StepResult {
  n: number;
  up: number;
  completed: number;
  cpuPerCallPct: number;
  /** The media worker thread alone: share of one core per call, and CPU per RTP packet handled (in or out). */
  mediaCpuPerCallPct: number;
  mediaCpuPerPacketUs: number;
  sippCpuPct: number;
  /** Datagrams the kernel dropped because a receive buffer was full: on our RTP sockets, on SIPp's media socket. */
  droppedOurs: number;
  droppedSipp: number;
  received: number;
  lost: number;
  late: number;
  mainP99: number;
  workerP99: number;
  lateTicks: number;
  skippedTicks: number;
  /** Skipped ticks by part of the step: while N calls were set up, in the window, while they ended. */
  skippedWhen: [number, number, number];
  broke: string[];
}

async function main(): Promise<void> {
  if (spawnSync('sh', ['-c', 'command -v sipp']).status !== 0) throw new Error('bench:sip needs SIPp (sip-tester); .ci/run installs it');
  const dataDir = freshDataDir('sip');
  const trunkPorts: number[] = [];
  for (let j = 0; j < PEERS; j++) trunkPorts.push(await freeUdpPort());
  const sipPort = await freeUdpPort();
  const { server, created } = await startLiveBenchServer({
    dataDir, phoneNumber: fromOf(0), trunk: 'sipp0', moreNumbers: trunkPorts.slice(1).map((_, j) => ({ phoneNumber: fromOf(j + 1), trunk: `sipp${j + 1}` })), carriersYaml: [
      'sip:',
      `  listen: { host: 127.0.0.1, udp_port: ${sipPort} }`,
      '  public_host: 127.0.0.1',
      `  rtp: { port_min: ${RTP_MIN}, port_max: ${RTP_MAX}${WORKERS ? `, workers: ${WORKERS}` : ''} }`,
      '  trunks:',
      ...trunkPorts.map((port, j) => `    - { name: sipp${j}, host: 127.0.0.1, port: ${port}, codecs: [PCMU] }`),
    ],
  });
  const carrier = server.built.services.voiceCarriers.forMode('live') as unknown as LiveSipCarrier;
  const auth = { authorization: `Bearer ${created.keys.live}`, 'content-type': 'application/json' };
  const mainLoop = monitorEventLoopDelay({ resolution: 5 });
  mainLoop.enable();

  const workers = (await carrier.mediaEngineStats()).workers;
  console.log(`bench:sip  ${workers} media worker(s); live calls against ${PEERS} SIPp peers (answer, echo RTP), recorded, flow say + pause ${HOLD} s; ${process.env.BENCH_DATABASE_URL ? 'PostgreSQL' : 'SQLite'}; window ${WINDOW} s; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  console.log('     N   up  done  CPU/call  media CPU/call  media CPU/packet  SIPp CPU   received    lost  late  dropped ours/SIPp  main p99  media p99  late/skipped ticks  skipped setup/window/end  verdict');
  // Warm-up, not reported: the speech engine compiles and the prompt enters its cache, as on
  // a node that has been up a while.
  await step(1, { url: server.url, auth, carrier, mainLoop, trunkPorts, sipPort });
  if (RATE > 0) {
    await sustained({ url: server.url, auth, carrier, trunkPorts, sipPort });
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
    return;
  }
  const results: StepResult[] = [];
  for (const n of STEPS) {
    const result = await step(n, { url: server.url, auth, carrier, mainLoop, trunkPorts, sipPort });
    results.push(result);
    console.log([
      String(n).padStart(6), String(result.up).padStart(4), String(result.completed).padStart(5),
      `${result.cpuPerCallPct.toFixed(2)}%`.padStart(9), `${result.mediaCpuPerCallPct.toFixed(3)}%`.padStart(15),
      `${result.mediaCpuPerPacketUs.toFixed(2)} µs`.padStart(17), `${result.sippCpuPct.toFixed(0)}%`.padStart(9),
      String(result.received).padStart(10), String(result.lost).padStart(7), String(result.late).padStart(5),
      `${result.droppedOurs}/${result.droppedSipp}`.padStart(18),
      `${result.mainP99.toFixed(1)} ms`.padStart(9), `${result.workerP99.toFixed(1)} ms`.padStart(10),
      `${result.lateTicks}/${result.skippedTicks}`.padStart(19), result.skippedWhen.join('/').padStart(25), `  ${result.broke.length ? `BREAKS: ${result.broke.join('; ')}` : 'ok'}`,
    ].join(' '));
    if (result.broke.length && STOP_AT_BREAK) break;
  }
  const firstBreak = results.find((r) => r.broke.length);
  console.log(firstBreak ? `  first break at N=${firstBreak.n}` : `  no break up to N=${results.at(-1)?.n}`);
  console.log(`  load average at the end ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
}

async function step(n: number, ctx: { url: string; auth: Record<string, string>; carrier: LiveSipCarrier; mainLoop: ReturnType<typeof monitorEventLoopDelay>; trunkPorts: number[]; sipPort: number }): Promise<StepResult> {
  // Call i goes to peer i % PEERS; a peer with no calls this step is not started.
  const peers = ctx.trunkPorts.map((port, j) => ({ port, calls: Math.floor(n / PEERS) + (j < n % PEERS ? 1 : 0) })).filter((p) => p.calls > 0);
  const mediaBase = SIPP_MEDIA_MIN + 4 * PEERS * Math.floor(Math.random() * Math.floor(SIPP_MEDIA_SPAN / (4 * PEERS)));
  const sipps = peers.map((peer, j) => startSipp(peer.calls, peer.port, mediaBase + 4 * j));
  for (const peer of peers) await waitForListener(peer.port, 'udp');
  const sippMediaPorts = new Set(sipps.flatMap((s) => [s.mediaPort, s.mediaPort + 2]));
  const oursDrops = new UdpDropSampler((port) => port >= RTP_MIN && port <= RTP_MAX);
  const sippDrops = new UdpDropSampler((port) => sippMediaPorts.has(port));
  // The SIP sockets too: a 200 OK the kernel dropped (our receive buffer full while the main
  // thread was busy with the burst) is an answer we only see when SIPp retransmits it.
  const oursSipDrops = new UdpDropSampler((port) => port === ctx.sipPort);
  const sippSipDrops = new UdpDropSampler((port) => ctx.trunkPorts.includes(port));
  oursDrops.start();
  sippDrops.start();
  oursSipDrops.start();
  sippSipDrops.start();
  const before = ctx.carrier.mediaTotals();
  await ctx.carrier.mediaEngineStats({ reset: true });
  ctx.mainLoop.reset();

  const flow = [{ say: { text: 'This call is part of a load test. Please hold.' } }, { pause: { seconds: HOLD } }];
  // The set-up: from the first POST until every call is up, the main loop's delay (max and
  // p99) and, per call, accepted (created_at) to answered (answered_at), read at the end.
  const setupLoop = monitorEventLoopDelay({ resolution: 5 });
  setupLoop.enable();
  const setupStart = performance.now();
  const placed = await Promise.all(Array.from({ length: n }, async (_, i) => {
    const res = await fetch(`${ctx.url}/v1/calls`, { method: 'POST', headers: ctx.auth, body: JSON.stringify({ from: fromOf(i % PEERS), to: `+1415555${String(1000 + i).padStart(4, '0')}`, record: true, flow, time_limit: HOLD + 60 }) });
    const body = await res.json() as { id?: string };
    return res.status === 200 ? body.id : undefined;
  }));
  const ids = placed.filter((id): id is string => id !== undefined);

  let up = 0;
  await until(async () => {
    up = (await ctx.carrier.mediaEngineStats()).sessions;
    return up >= ids.length;
  }, 60);
  const setupSeconds = (performance.now() - setupStart) / 1000;
  setupLoop.disable();
  const setupLoopMs = { p99: setupLoop.percentile(99) / 1e6, max: setupLoop.max / 1e6 };
  const cpu0 = ownCpuMs();
  const sippCpuMs = () => sipps.reduce((sum, s) => sum + cpuMsOf(s.child.pid!), 0);
  const sipp0 = sippCpuMs();
  // Ticks are counted over the whole step (read at the end, with these); loop delay over the window.
  const setup = await ctx.carrier.mediaEngineStats({ reset: true });
  ctx.mainLoop.reset();
  const engine0 = setup;
  const t0 = performance.now();
  await sleep(WINDOW * 1000);
  const seconds = (performance.now() - t0) / 1000;
  const cpuPerCallPct = ((ownCpuMs() - cpu0) / 10 / seconds) / Math.max(1, up);
  const sippCpuPct = (sippCpuMs() - sipp0) / 10 / seconds;
  const mainP99 = ctx.mainLoop.percentile(99) / 1e6;
  const engine = await ctx.carrier.mediaEngineStats();
  const mediaCpuMs = (engine.threadCpuMs ?? NaN) - (engine0.threadCpuMs ?? NaN);
  const mediaCpuPerCallPct = (mediaCpuMs / 10 / seconds) / Math.max(1, up);
  const packetsHandled = engine.packetsReceived - engine0.packetsReceived + engine.packetsSent - engine0.packetsSent;
  const mediaCpuPerPacketUs = (mediaCpuMs * 1000) / Math.max(1, packetsHandled);

  // Every call ends by itself when its flow runs out; then SIPp exits (each call got its BYE).
  await until(async () => (await ctx.carrier.mediaEngineStats()).sessions === 0, HOLD + 90);
  const final = await ctx.carrier.mediaEngineStats();
  const sippExits = await Promise.all(sipps.map(async (sipp) => {
    const code = await Promise.race([sipp.exited, sleep(30_000).then(() => null)]);
    if (code === null) sipp.child.kill('SIGKILL');
    return code;
  }));
  const sippFailures = sippExits.filter((code) => code !== 0);
  const droppedOurs = oursDrops.stop();
  const droppedSipp = sippDrops.stop();
  const droppedSip = { ours: oursSipDrops.stop(), sipp: sippSipDrops.stop() };
  const answerMs: number[] = [];
  let completed = 0;
  // How the calls that did not complete ended (status, hangup cause, SIP code), counted.
  const otherwise = new Map<string, number>();
  for (const id of ids) {
    const res = await fetch(`${ctx.url}/v1/calls/${id}`, { headers: ctx.auth });
    const call = (await res.json()) as { status: string; hangup_cause: string | null; hangup_source: string | null; sip_status: number | null; created_at: string; answered_at: string | null };
    if (call.answered_at) answerMs.push(Date.parse(call.answered_at) - Date.parse(call.created_at));
    if (call.status === 'completed') completed++;
    else {
      const how = [call.status, call.hangup_cause, call.hangup_source, call.sip_status && `SIP ${call.sip_status}`].filter(Boolean).join(' ');
      otherwise.set(how, (otherwise.get(how) ?? 0) + 1);
    }
  }
  const after = ctx.carrier.mediaTotals();
  const received = after.packetsReceived - before.packetsReceived;
  const lost = after.packetsLost - before.packetsLost;
  const late = after.latePackets - before.latePackets;
  const broke: string[] = [];
  if (completed < n) broke.push(`${n - completed} calls not completed (${[...otherwise].map(([how, count]) => `${count} ${how}`).join(', ')})`);
  if (lost > 0) broke.push(`${lost} packets lost`);
  const lateTicks = setup.ticker.lateTicks + final.ticker.lateTicks;
  const skippedTicks = setup.ticker.skippedTicks + final.ticker.skippedTicks;
  if (skippedTicks > 0) broke.push(`${skippedTicks} ticks skipped`);
  if (engine.loopDelayP99Ms > 20) broke.push('media loop p99 > 20 ms');
  if (sippFailures.length) broke.push(`${sippFailures.length} SIPp exited ${sippFailures.map((code) => code ?? 'late (killed)').join(',')}`);
  answerMs.sort((a, b) => a - b);
  const pct = (q: number) => answerMs.length ? answerMs[Math.min(answerMs.length - 1, Math.floor(q * answerMs.length))]! : NaN;
  console.log(`  set-up N=${n}: all up in ${setupSeconds.toFixed(1)} s; accepted to answered p50 ${pct(0.5)} ms, p99 ${pct(0.99)} ms, max ${answerMs.at(-1) ?? NaN} ms (${answerMs.length} answered); `
    + `main loop during set-up p99 ${setupLoopMs.p99.toFixed(0)} ms, max ${setupLoopMs.max.toFixed(0)} ms; SIP datagrams dropped by the kernel ours/SIPp ${droppedSip.ours}/${droppedSip.sipp}`);
  return {
    n, up, completed, cpuPerCallPct, mediaCpuPerCallPct, mediaCpuPerPacketUs, sippCpuPct, droppedOurs, droppedSipp, received, lost, late, mainP99, workerP99: engine.loopDelayP99Ms,
    lateTicks, skippedTicks, skippedWhen: [setup.ticker.skippedTicks, engine.ticker.skippedTicks, final.ticker.skippedTicks - engine.ticker.skippedTicks], broke,
  };
}

/**
 * BENCH_SIP_RATE=50: new calls at that rate for BENCH_SIP_RATE_SECONDS (60), each running a
 * short flow (a `say`, then a pause of BENCH_SIP_RATE_HOLD seconds, 3) and recorded: every
 * call must be answered. Prints the share answered, accepted-to-answered p50/p99/max, the
 * main loop's delay over the run, the process CPU per call and the SIP sockets' kernel drops.
 */
async function sustained(ctx: { url: string; auth: Record<string, string>; carrier: LiveSipCarrier; trunkPorts: number[]; sipPort: number }): Promise<void> {
  const total = Math.round(RATE * RATE_SECONDS);
  const peers = ctx.trunkPorts.map((port, j) => ({ port, calls: Math.floor(total / PEERS) + (j < total % PEERS ? 1 : 0) })).filter((p) => p.calls > 0);
  const mediaBase = SIPP_MEDIA_MIN + 4 * PEERS * Math.floor(Math.random() * Math.floor(SIPP_MEDIA_SPAN / (4 * PEERS)));
  const sipps = peers.map((peer, j) => startSipp(peer.calls, peer.port, mediaBase + 4 * j));
  for (const peer of peers) await waitForListener(peer.port, 'udp');
  const oursSipDrops = new UdpDropSampler((port) => port === ctx.sipPort);
  const sippSipDrops = new UdpDropSampler((port) => ctx.trunkPorts.includes(port));
  oursSipDrops.start();
  sippSipDrops.start();
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const flow = [{ say: { text: 'Load test.' } }, { pause: { seconds: RATE_HOLD } }];
  const cpu0 = ownCpuMs();
  const start = performance.now();
  const posts: Array<Promise<string | undefined>> = [];
  let peak = 0;
  // Calls leave on a schedule (call i at i / RATE seconds), however late a tick runs.
  while (posts.length < total) {
    const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * RATE) + 1);
    for (let i = posts.length; i < due; i++) {
      posts.push(fetch(`${ctx.url}/v1/calls`, { method: 'POST', headers: ctx.auth, body: JSON.stringify({ from: fromOf(i % PEERS), to: `+1415556${String(i % 10000).padStart(4, '0')}`, record: true, flow, time_limit: RATE_HOLD + 60 }) })
        .then(async (res) => (res.status === 200 ? ((await res.json()) as { id: string }).id : undefined), () => undefined));
    }
    peak = Math.max(peak, (await ctx.carrier.mediaEngineStats()).sessions);
    await sleep(20);
  }
  const placedSeconds = (performance.now() - start) / 1000;
  const ids = (await Promise.all(posts)).filter((id): id is string => id !== undefined);
  await until(async () => (await ctx.carrier.mediaEngineStats()).sessions === 0, RATE_HOLD + 90);
  const cpuMs = ownCpuMs() - cpu0;
  loop.disable();
  await Promise.all(sipps.map(async (sipp) => {
    if ((await Promise.race([sipp.exited, sleep(30_000).then(() => null)])) === null) sipp.child.kill('SIGKILL');
  }));
  const answerMs: number[] = [];
  const otherwise = new Map<string, number>();
  for (const id of ids) {
    const call = (await (await fetch(`${ctx.url}/v1/calls/${id}`, { headers: ctx.auth })).json()) as { status: string; hangup_cause: string | null; created_at: string; answered_at: string | null };
    if (call.answered_at) answerMs.push(Date.parse(call.answered_at) - Date.parse(call.created_at));
    else otherwise.set(`${call.status} ${call.hangup_cause}`, (otherwise.get(`${call.status} ${call.hangup_cause}`) ?? 0) + 1);
  }
  answerMs.sort((a, b) => a - b);
  const pct = (q: number) => answerMs[Math.min(answerMs.length - 1, Math.floor(q * answerMs.length))] ?? NaN;
  console.log(`  sustained: ${total} calls at ${RATE}/s placed in ${placedSeconds.toFixed(1)} s (${ids.length} accepted), peak ${peak} up at once; answered ${answerMs.length}/${total}`
    + `${otherwise.size ? ` (not answered: ${[...otherwise].map(([how, c]) => `${c} ${how}`).join(', ')})` : ''}`);
  console.log(`  accepted to answered p50 ${pct(0.5)} ms, p99 ${pct(0.99)} ms, max ${answerMs.at(-1)} ms; main loop delay p99 ${(loop.percentile(99) / 1e6).toFixed(0)} ms, max ${(loop.max / 1e6).toFixed(0)} ms; `
    + `process CPU per call ${(cpuMs / Math.max(1, ids.length)).toFixed(1)} ms (HTTP, SIP, database, media); SIP datagrams dropped by the kernel ours/SIPp ${oursSipDrops.stop()}/${sippSipDrops.stop()}`);
  console.log(`  load average at the end ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
}

function startSipp(n: number, port: number, mediaPort: number): { child: ChildProcess; exited: Promise<number | null>; mediaPort: number } {
  const child = spawn('sipp', [
    '-sf', join(SCENARIOS, 'uas-answer-echo.xml'), '-i', '127.0.0.1', '-p', String(port), '-mi', '127.0.0.1', '-mp', String(mediaPort), '-rtp_echo',
    '-t', 'u1', '-m', String(n), '-nostdin', '-timeout', `${HOLD + 120}s`, '-timeout_error', '-max_socket', String(n + 50),
  ], { stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, mediaPort };
}

await main();
