// `npm run bench:recording-memory`: the bounded-memory check for recordings (issue 11 item 4).
// A spawned `switchboard serve` runs one sandbox call with `record: true` to a party that never
// hangs up, with the longest time limit a test wants (RECORDING_HOURS, default 12); the test
// clock is advanced past it, so the call ends and its recording (1.4 GB of stereo 8 kHz WAV
// for 12 hours) is produced. Meanwhile the bench samples the server's resident memory from
// /proc every 20 ms and probes /healthz every 20 ms. Reports the peak RSS added over the idle
// server, the longest /healthz round trip (an upper bound on any event-loop stall), and the
// wall time and CPU the recording took, and the server's own event-loop delay (max and p99,
// perf_hooks.monitorEventLoopDelay preloaded by lib/loop-delay-probe.mjs) while the recording is
// produced next to the same window on the idle server. Bounded: gives up after DEADLINE_SECONDS.
import { readFileSync, rmSync, statSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createAccount, freshDataDir, startSwitchboard } from './lib/spawn.ts';

const HOURS = Number(process.env.RECORDING_HOURS ?? 12);
const DEADLINE_MS = Number(process.env.DEADLINE_SECONDS ?? 600) * 1000;
const STAYS_UP = '+15005550004';

const dataDir = freshDataDir('recording-memory');
const created = createAccount(dataDir, 'enterprise');
const loopFile = join(dataDir, 'loop-delay.json');
const probe = fileURLToPath(new URL('./lib/loop-delay-probe.mjs', import.meta.url));
const server = await startSwitchboard(dataDir, {
  SWITCHBOARD_SIM_TIME_SCALE: '0.1', LOOP_DELAY_FILE: loopFile, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${probe}`.trim(),
});
const pid = server.child.pid!;
const api = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(server.url + path, {
    method,
    headers: { authorization: `Bearer ${created.keys.sandbox}`, ...(body ? { 'content-type': 'application/json', 'idempotency-key': randomUUID() } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: await res.json() as any };
};
const rssBytes = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
const cpuSeconds = () => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks of 10 ms
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
type LoopDelay = { window: number; max: number; p99: number; mean: number; count: number };
/** Closes the server's current event-loop delay window and reads it (bounded wait for the file). */
async function loopDelay(): Promise<LoopDelay> {
  const previous = existsSync(loopFile) ? (JSON.parse(readFileSync(loopFile, 'utf8')) as LoopDelay).window : 0;
  process.kill(pid, 'SIGUSR2');
  for (let i = 0; i < 200; i++) {
    await sleep(10);
    if (!existsSync(loopFile)) continue;
    try {
      const read = JSON.parse(readFileSync(loopFile, 'utf8')) as LoopDelay;
      if (read.window > previous) return read;
    } catch { /* half written: read again */ }
  }
  throw new Error('the server did not report its event-loop delay (is the probe preloaded?)');
}
const started = Date.now();

try {
  const call = await api('POST', '/v1/calls', { from: created.numbers.sandbox[0], to: STAYS_UP, record: true, time_limit: HOURS * 3600 });
  if (call.status !== 200) throw new Error(`POST /v1/calls: ${JSON.stringify(call.body)}`);
  while ((await api('GET', `/v1/calls/${call.body.id}`)).body.status !== 'in_progress') await sleep(50);
  for (let i = 0; i < 20; i++) await api('GET', '/v1/account'); // warm the paths the probe loop uses
  await sleep(500);
  const idleRss = rssBytes();
  const cpuBefore = cpuSeconds();
  let peakRss = idleRss;
  const probeMs: number[] = [];
  let done = false;
  const sampler = (async () => {
    while (!done) {
      peakRss = Math.max(peakRss, rssBytes());
      await sleep(20);
    }
  })();
  const prober = (async () => {
    while (!done) {
      const t0 = performance.now();
      await fetch(`${server.url}/healthz`).then((r) => r.arrayBuffer());
      probeMs.push(performance.now() - t0);
      await sleep(20);
    }
  })();

  // The same probes on the idle server first: on a shared machine, scheduling alone delays some.
  await loopDelay(); // opens the idle window
  await sleep(3000);
  const idleProbes = probeMs.splice(0);
  const idleLoop = await loopDelay(); // closes it and opens the recording's
  const renderStart = Date.now();
  const advanced = await api('POST', '/v1/sandbox/clock/advance', { seconds: HOURS * 3600 + 60 });
  if (advanced.status !== 200) throw new Error(`advance: ${JSON.stringify(advanced.body)}`);
  let recording: any;
  for (;;) {
    if (Date.now() - started > DEADLINE_MS) throw new Error('deadline passed before the recording was ready');
    const list = await api('GET', `/v1/recordings?call_id=${call.body.id}`);
    recording = list.body.data[0];
    if (recording?.status === 'ready' || recording?.status === 'failed') break;
    await sleep(200);
  }
  const renderSeconds = (Date.now() - renderStart) / 1000;
  const recordingLoop = await loopDelay();
  const cpu = cpuSeconds() - cpuBefore;
  done = true;
  await Promise.all([sampler, prober]);
  if (recording.status !== 'ready') throw new Error(`recording failed: ${recording.error}`);
  const file = statSync(join(dataDir, 'recordings', created.account.id, `${recording.id}.wav`));
  const mb = (n: number) => (n / 1024 / 1024).toFixed(1);
  console.log(`recording: ${recording.duration_seconds} s of ${recording.channels}-channel ${recording.sample_rate} Hz audio, ${mb(file.size)} MB on disk (size_bytes ${recording.size_bytes})`);
  console.log(`peak RSS added over the idle server: ${mb(peakRss - idleRss)} MB (idle ${mb(idleRss)} MB, peak ${mb(peakRss)} MB; target < 64 MB)`);
  const stats = (xs: number[]) => {
    const sorted = [...xs].sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(1);
    return `p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${sorted.at(-1)!.toFixed(1)} ms over ${xs.length} probes`;
  };
  console.log(`/healthz round trips while recording: ${stats(probeMs)} (target: no stall > 100 ms)`);
  console.log(`/healthz round trips on the idle server before: ${stats(idleProbes)}`);
  const loop = (d: LoopDelay) => `max ${d.max} ms, p99 ${d.p99} ms, mean ${d.mean} ms (${d.count} samples)`;
  console.log(`server event-loop delay while recording: ${loop(recordingLoop)} (target: max <= 100 ms)`);
  console.log(`server event-loop delay on the idle server before: ${loop(idleLoop)}`);
  console.log(`produced in ${renderSeconds.toFixed(1)} s wall, ${cpu.toFixed(1)} s server CPU (${(cpu / (recording.duration_seconds / 3600)).toFixed(2)} CPU s per recorded hour)`);
} finally {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
