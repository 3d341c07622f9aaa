// npm run bench:rtp — the media engine alone, without SIP, HTTP or a database: what one leg
// and one packet cost on the media thread, a figure that holds on a busy shared machine
// (it is the thread's own CPU, divided by what it handled).
//
// BENCH_RTP_LEGS legs (default 200) are opened in one MediaEngine, each recording to a WAV
// and sending to one echo peer in a child process (one socket for all legs, as SIPp's
// -rtp_echo), which returns every packet; so each leg takes in and sends 50 packets/s.
// After a BENCH_RTP_WARMUP s warm-up (default 3), a BENCH_RTP_WINDOW s window (default 10)
// reports: media thread CPU per packet and per leg, its loop delay p99, late/skipped
// ticks, RTP lost and late, datagrams the kernel dropped on our sockets and on the peer's,
// and the echo peer's own CPU.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { MediaEngine } from '../src/carriers/rtp/engine.ts';
import { UdpDropSampler } from './lib/udp-drops.ts';
import { cpuMsOf, sleep } from './lib/measure.ts';

const LEGS = Number(process.env.BENCH_RTP_LEGS ?? 200);
const WARMUP = Number(process.env.BENCH_RTP_WARMUP ?? 3);
const WINDOW = Number(process.env.BENCH_RTP_WINDOW ?? 10);
const RANGE = { min: 46000, max: 46998 };
const ECHO = `const s = require('node:dgram').createSocket('udp4');
s.on('message', (m, r) => s.send(m, r.port, r.address));
s.bind(0, '127.0.0.1', () => console.log(s.address().port));`;

const echo = spawn(process.execPath, ['-e', ECHO], { stdio: ['ignore', 'pipe', 'inherit'] });
const echoPort = Number(await new Promise<string>((resolve) => createInterface({ input: echo.stdout! }).once('line', resolve)));
const dir = mkdtempSync(join(tmpdir(), 'bench-rtp-'));
const engine = new MediaEngine({ host: '127.0.0.1', range: RANGE });
const ours = new UdpDropSampler((port) => port >= RANGE.min && port <= RANGE.max);
const peers = new UdpDropSampler((port) => port === echoPort);
try {
  const ids = Array.from({ length: LEGS }, (_, i) => `leg${i}`);
  for (const id of ids) {
    await engine.open(id);
    await engine.setRemote(id, { address: '127.0.0.1', port: echoPort, codec: 'PCMU', payloadType: 0, dtmfPayloadType: 101 });
    await engine.startRecording(id, join(dir, `${id}.wav`));
  }
  ours.start();
  peers.start();
  await sleep(WARMUP * 1000);
  const before = await engine.stats({ reset: true });
  const echo0 = cpuMsOf(echo.pid!);
  const t0 = performance.now();
  await sleep(WINDOW * 1000);
  const seconds = (performance.now() - t0) / 1000;
  const after = await engine.stats();
  const echoCpuPct = (cpuMsOf(echo.pid!) - echo0) / 10 / seconds;
  let lost = 0;
  let late = 0;
  for (const id of ids) {
    await engine.stopRecording(id);
    const stats = await engine.close(id);
    lost += stats?.packetsLost ?? 0;
    late += stats?.latePackets ?? 0;
  }
  const cpuMs = (after.threadCpuMs ?? NaN) - (before.threadCpuMs ?? NaN);
  const packets = after.packetsReceived - before.packetsReceived + after.packetsSent - before.packetsSent;
  console.log(`bench:rtp  ${LEGS} legs, recorded, echoed by one peer socket; window ${seconds.toFixed(1)} s; load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
  console.log(`  media thread CPU: ${(cpuMs / 10 / seconds).toFixed(1)}% of a core, ${(cpuMs / 10 / seconds / LEGS).toFixed(3)}% per leg, ${((cpuMs * 1000) / packets).toFixed(2)} µs per packet (${packets} packets in or out)`);
  console.log(`  media loop p99 ${after.loopDelayP99Ms.toFixed(1)} ms; ticks late/skipped ${after.ticker.lateTicks}/${after.ticker.skippedTicks}; max lateness ${after.ticker.maxLatenessMs.toFixed(1)} ms`);
  console.log(`  RTP lost ${lost}, late ${late} (whole run); kernel drops ours/peer ${ours.stop()}/${peers.stop()}; echo peer CPU ${echoCpuPct.toFixed(0)}%`);
} finally {
  await engine.shutdown();
  echo.kill();
  rmSync(dir, { recursive: true, force: true });
}
