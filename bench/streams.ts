// npm run bench:streams — N concurrent live calls, each with a bidirectional media stream to a
// local echo WebSocket server (issue 27).
//
// A real server runs in this process (SQLite unless BENCH_DATABASE_URL, fresh data dir,
// enterprise plan) with BENCH_STREAMS_PEERS SIPp trunks (default 8; bench/sip.ts says why
// several) that answer and echo every RTP packet. Each call runs the flow
// [{ stream: { bidirectional: true } }]: the stream holds the call until the app sends `stop`,
// then the flow runs out and we hang up. The app (a `ws` server on its own thread, lib/stream-echo.mjs)
// answers every inbound media frame with its payload, so 50 frames a second flow each way per
// stream; half the streams also send a `mark` after every 25th echoed frame, the other half
// probe an empty play queue once a second (lib/stream-echo.mjs).
// For each step N (BENCH_STREAMS_STEPS, default 25,50,100) it measures a window of
// BENCH_STREAMS_WINDOW seconds once all N streams have started and reports:
//   - WebSocket to RTP, mark trip: a mark's round trip, from the app sending it (right behind a
//     frame of echo) to the mark coming back, which the worker sends in the tick that plays that
//     audio (so: the hop to the worker, the wait behind the echo audio already queued, and one
//     hop back), p50/p99. Queued audio's playout is the app's own doing, not added delay.
//   - WebSocket to RTP, added delay: one frame sent right after a `clear`, into an empty play
//     queue, from the app's send to its RTP packet on the loopback wire (the kernel's timestamp,
//     lib/rtp-probe-capture.py: needs root or CAP_NET_RAW; without it, NaN): the hop to the
//     worker and the wait for the leg's next 20 ms tick, p50/p99; and the probe's mark trip,
//     which the worker sends in that same tick, so the same plus one hop back (its bound)
//   - RTP to WebSocket, added delay: SIPp's echo of the probe's packet, from the wire (same
//     capture) to its `media` frame at the app, p50/p99 (and how many were heard)
//   - RTP to WebSocket, lateness: each inbound media frame against the stream's own 20 ms
//     clock (its arrival at the app minus `timestamp`, less the smallest such difference of that
//     stream: 0 is as early as the stream's quickest frame), p50/p99: jitter, the far end's
//     included; a constant delay never shows in it
//   - frames dropped (dropped_frames of every stream, after the calls end)
//   - CPU per stream: this whole process (API, SIP, database, media workers and the echo app)
//     over the window as a share of one core, divided by N; and the media worker threads alone
// Every wait is bounded; a step that does not get all N streams started says so.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { LiveSipCarrier } from '../src/carriers/sip/live-carrier.ts';
import { freshDataDir } from './lib/spawn.ts';
import { startLiveBenchServer } from './lib/live-server.ts';
import { freeUdpPort, SCENARIOS, waitForListener } from '../test/helpers/sipp.ts';
import { ownCpuMs, sleep, until } from './lib/measure.ts';

const STEPS = (process.env.BENCH_STREAMS_STEPS ?? '25,50,100').split(',').map(Number).filter((n) => n > 0);
const WINDOW = Number(process.env.BENCH_STREAMS_WINDOW ?? 10);
const PEERS = Math.max(1, Math.min(32, Number(process.env.BENCH_STREAMS_PEERS ?? 8)));
const fromOf = (peer: number) => `+1415555${String(142 + peer).padStart(4, '0')}`;
// Ours take 600 ports from BENCH_STREAMS_RTP_MIN, the SIPp peers' media the next 4 each.
const RTP_MIN = Number(process.env.BENCH_STREAMS_RTP_MIN ?? 52000);
const RTP_MAX = RTP_MIN + 599;
const SIPP_MEDIA_BASE = RTP_MIN + 600;

function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

interface Measured { markTrips: number[]; probeTrips: number[]; probeSends: Array<[number, number]>; probeEchoes: Array<[number, number]>; lateness: number[] }

/** The echo app (lib/stream-echo.mjs) on its own thread, and what it measured. */
class EchoApp {
  private readonly worker = new Worker(new URL('./lib/stream-echo.mjs', import.meta.url));
  started = 0;
  port = 0;
  private reported: ((r: Measured) => void) | undefined;

  async listening(): Promise<void> {
    this.worker.on('message', (m: { kind: string } & Partial<Measured>) => {
      if (m.kind === 'started') this.started++;
      else if (m.kind === 'report') this.reported?.({ markTrips: m.markTrips!, probeTrips: m.probeTrips!, probeSends: m.probeSends!, probeEchoes: m.probeEchoes!, lateness: m.lateness! });
    });
    this.port = await new Promise<number>((resolve) => this.worker.once('message', (m: { port: number }) => resolve(m.port)));
  }

  get url(): string {
    return `ws://127.0.0.1:${this.port}/echo`;
  }

  measure(on: boolean): void {
    this.worker.postMessage({ kind: 'measure', on });
  }

  /** Sends `stop` on every open stream: their flows run out and the calls end. */
  stopAll(): void {
    this.worker.postMessage({ kind: 'stop' });
  }

  /** What it measured since the last report (lateness: of streams closed since). */
  report(): Promise<Measured> {
    return new Promise((resolve) => {
      this.reported = resolve;
      this.worker.postMessage({ kind: 'report' });
    });
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }
}

/** lib/rtp-probe-capture.py: when each probe's RTP packet was on the wire (earliest sighting, ms since the epoch). */
class ProbeCapture {
  /** Each probe's packet to SIPp. */
  readonly seen = new Map<number, number>();
  /** SIPp's echo of it, to one of our RTP ports. */
  readonly echoed = new Map<number, number>();
  private constructor(private readonly child: ChildProcess) {
    let buffered = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        const [id, at, port] = line.split(' ').map(Number);
        if (!Number.isFinite(id) || !Number.isFinite(at)) continue;
        const into = port! >= RTP_MIN && port! <= RTP_MAX ? this.echoed : this.seen;
        if (!into.has(id!) || (into.get(id!) as number) > at!) into.set(id!, at!);
      }
    });
  }

  /** Null when packets cannot be captured here (not root, no python3). */
  static async start(): Promise<ProbeCapture | null> {
    const child = spawn('python3', [join(import.meta.dirname, 'lib', 'rtp-probe-capture.py')], { stdio: ['ignore', 'pipe', 'pipe'] });
    const ready = await new Promise<boolean>((resolve) => {
      child.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString().startsWith('ready')));
      child.once('exit', () => resolve(false));
      child.once('error', () => resolve(false));
    });
    if (!ready) child.kill('SIGKILL');
    return ready ? new ProbeCapture(child) : null;
  }

  close(): void {
    this.child.kill('SIGKILL');
  }
}

async function main(): Promise<void> {
  if (spawnSync('sh', ['-c', 'command -v sipp']).status !== 0) throw new Error('bench:streams needs SIPp (sip-tester)');
  const dataDir = freshDataDir('streams');
  const trunkPorts: number[] = [];
  for (let j = 0; j < PEERS; j++) trunkPorts.push(await freeUdpPort());
  const sipPort = await freeUdpPort();
  process.env.SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE = 'true'; // the echo app is on 127.0.0.1 over ws://
  const { server, created } = await startLiveBenchServer({
    dataDir, phoneNumber: fromOf(0), trunk: 'sipp0', moreNumbers: trunkPorts.slice(1).map((_, j) => ({ phoneNumber: fromOf(j + 1), trunk: `sipp${j + 1}` })), carriersYaml: [
      'sip:',
      `  listen: { host: 127.0.0.1, udp_port: ${sipPort} }`,
      '  public_host: 127.0.0.1',
      `  rtp: { port_min: ${RTP_MIN}, port_max: ${RTP_MAX} }`,
      '  trunks:',
      ...trunkPorts.map((port, j) => `    - { name: sipp${j}, host: 127.0.0.1, port: ${port}, codecs: [PCMU] }`),
    ],
  });
  const carrier = server.built.services.voiceCarriers.forMode('live') as unknown as LiveSipCarrier;
  const auth = { authorization: `Bearer ${created.keys.live}`, 'content-type': 'application/json' };
  const app = new EchoApp();
  await app.listening();
  const capture = await ProbeCapture.start();
  const workers = (await carrier.mediaEngineStats()).workers;
  console.log(`bench:streams  ${workers} media worker(s); N live calls against ${PEERS} SIPp peers (answer, echo RTP), each with a bidirectional µ-law stream to an echo app; ${process.env.BENCH_DATABASE_URL ? 'PostgreSQL' : 'SQLite'}; window ${WINDOW} s; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  console.log('     N  streams  WS→RTP p50/p99 (mark trip)  WS→RTP p50/p99 (added, wire)  (probe mark trip)  RTP→WS p50/p99 (added, wire)  RTP→WS p50/p99 (lateness)  dropped  CPU/stream  media CPU/stream  completed');
  await step(1, { url: server.url, auth, carrier, app, trunkPorts, capture }); // warm-up, not reported
  for (const n of STEPS) {
    const r = await step(n, { url: server.url, auth, carrier, app, trunkPorts, capture });
    console.log([
      String(n).padStart(6), String(r.started).padStart(8),
      `${r.wsToRtp[0].toFixed(1)} / ${r.wsToRtp[1].toFixed(1)} ms`.padStart(27), `${r.added[0].toFixed(1)} / ${r.added[1].toFixed(1)} ms (${r.added[2]})`.padStart(30), `${r.probe[0].toFixed(1)} / ${r.probe[1].toFixed(1)} ms`.padStart(18), `${r.back[0].toFixed(1)} / ${r.back[1].toFixed(1)} ms (${r.back[2]})`.padStart(30), `${r.rtpToWs[0].toFixed(1)} / ${r.rtpToWs[1].toFixed(1)} ms`.padStart(26),
      String(r.dropped).padStart(8), `${r.cpuPct.toFixed(2)}%`.padStart(11), `${r.mediaCpuPct.toFixed(2)}%`.padStart(17), String(r.completed).padStart(10),
    ].join(' '));
  }
  console.log(`  load average at the end ${loadavg().map((l) => l.toFixed(1)).join(' ')}; (k/m): probes timed on the wire of those sent${capture ? '' : ' (no capture here: not root?)'}`);
  capture?.close();
  await app.close();
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
}

interface StepContext { url: string; auth: Record<string, string>; carrier: LiveSipCarrier; app: EchoApp; trunkPorts: number[]; capture: ProbeCapture | null }

async function step(n: number, ctx: StepContext) {
  const peers = ctx.trunkPorts.map((port, j) => ({ port, calls: Math.floor(n / PEERS) + (j < n % PEERS ? 1 : 0) })).filter((p) => p.calls > 0);
  const sipps = peers.map((peer, j) => startSipp(peer.calls, peer.port, SIPP_MEDIA_BASE + 4 * j));
  for (const peer of peers) await waitForListener(peer.port, 'udp');
  ctx.app.started = 0;
  const flow = [{ stream: { url: ctx.app.url, bidirectional: true, track: 'inbound', format: 'mulaw_8000' } }];
  const placed = await Promise.all(Array.from({ length: n }, async (_, i) => {
    const res = await fetch(`${ctx.url}/v1/calls`, { method: 'POST', headers: ctx.auth, body: JSON.stringify({ from: fromOf(i % PEERS), to: `+1415555${String(1000 + i).padStart(4, '0')}`, flow, time_limit: 300 }) });
    const body = (await res.json()) as { id?: string };
    return res.status === 200 ? body.id : undefined;
  }));
  const ids = placed.filter((id): id is string => id !== undefined);
  await until(() => ctx.app.started >= ids.length, 60);
  await sleep(1000); // every stream's clock under way before measuring
  const cpu0 = ownCpuMs();
  const engine0 = await ctx.carrier.mediaEngineStats();
  ctx.app.measure(true);
  const t0 = performance.now();
  await sleep(WINDOW * 1000);
  ctx.app.measure(false);
  const seconds = (performance.now() - t0) / 1000;
  const engine = await ctx.carrier.mediaEngineStats();
  const streams = Math.max(1, ctx.app.started);
  const cpuPct = ((ownCpuMs() - cpu0) / 10 / seconds) / streams;
  const mediaCpuPct = (((engine.threadCpuMs ?? NaN) - (engine0.threadCpuMs ?? NaN)) / 10 / seconds) / streams;
  const started = ctx.app.started;
  ctx.app.stopAll();
  await until(async () => (await ctx.carrier.mediaEngineStats()).sessions === 0, 90);
  await Promise.all(sipps.map(async (sipp) => {
    const code = await Promise.race([sipp.exited, sleep(30_000).then(() => null)]);
    if (code === null) {
      // A peer that lost calls under load: killed, and gone before the next step binds its port.
      sipp.child.kill('SIGKILL');
      await sipp.exited;
    }
  }));
  const measured = await ctx.app.report();
  let dropped = 0;
  let completed = 0;
  for (const id of ids) {
    const call = (await (await fetch(`${ctx.url}/v1/calls/${id}`, { headers: ctx.auth })).json()) as { status: string };
    if (call.status === 'completed') completed++;
    const list = (await (await fetch(`${ctx.url}/v1/calls/${id}/streams`, { headers: ctx.auth })).json()) as { data: { dropped_frames: number }[] };
    for (const s of list.data ?? []) dropped += s.dropped_frames;
  }
  const added = measured.probeSends.flatMap(([id, sentAt]) => {
    const onWire = ctx.capture?.seen.get(id);
    return onWire === undefined ? [] : [onWire - sentAt];
  });
  const back = measured.probeEchoes.flatMap(([id, heardAt]) => {
    const onWire = ctx.capture?.echoed.get(id);
    return onWire === undefined ? [] : [heardAt - onWire];
  });
  return {
    started, completed, dropped, cpuPct, mediaCpuPct,
    added: [percentile(added, 50), percentile(added, 99), `${added.length}/${measured.probeSends.length}`] as const,
    back: [percentile(back, 50), percentile(back, 99), `${back.length}`] as const,
    wsToRtp: [percentile(measured.markTrips, 50), percentile(measured.markTrips, 99)] as const,
    probe: [percentile(measured.probeTrips, 50), percentile(measured.probeTrips, 99)] as const,
    rtpToWs: [percentile(measured.lateness, 50), percentile(measured.lateness, 99)] as const,
  };
}

function startSipp(n: number, port: number, mediaPort: number): { child: ChildProcess; exited: Promise<number | null> } {
  const child = spawn('sipp', [
    '-sf', join(SCENARIOS, 'uas-answer-echo.xml'), '-i', '127.0.0.1', '-p', String(port), '-mi', '127.0.0.1', '-mp', String(mediaPort), '-rtp_echo',
    '-t', 'u1', '-m', String(n), '-nostdin', '-timeout', '300s', '-timeout_error', '-max_socket', String(n + 50),
  ], { stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited };
}

await main();
