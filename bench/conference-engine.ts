// BENCH_CONF_LIVE=0 npm run bench:conference — conference mixing in the media engine alone (no SIP, HTTP or
// database): BENCH_CONF_STEPS conferences at once (default 10, 20, 40), each of
// BENCH_CONF_SIZE legs (default 5) on one media worker, every leg hearing the sum of the
// others (conference-mix.ts). Each leg sends to one echo peer in a child process (one socket
// for all legs), which returns every packet, so each leg takes in and sends 50 packets/s
// and the mix sums real inbound frames. Per step, after BENCH_CONF_WARMUP s (default 2), a
// BENCH_CONF_WINDOW s window (default 5) reports: the media threads' CPU per participant and
// per packet, the worst worker's loop delay p99, late/skipped 20 ms ticks, RTP lost and late,
// and datagrams the kernel dropped on either side; the first step with any of those is where
// it breaks. Then the delay the mix adds (lib/mix-delay.ts): a click's way through a
// conference, across workers and within one, beside a plain bridge, over BENCH_CONF_DELAY_SECONDS
// (default 10).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { MediaEngine } from '../src/carriers/rtp/engine.ts';
import { UdpDropSampler } from './lib/udp-drops.ts';
import { describeDelays, measureMixDelay } from './lib/mix-delay.ts';

const STEPS = (process.env.BENCH_CONF_STEPS ?? '10,20,40').split(',').map(Number);
const SIZE = Number(process.env.BENCH_CONF_SIZE ?? 5);
const WARMUP = Number(process.env.BENCH_CONF_WARMUP ?? 2);
const WINDOW = Number(process.env.BENCH_CONF_WINDOW ?? 5);
// Our RTP ports (BENCH_CONF_RTP, as the live mode reads it; default 47000-47998).
const [rangeMin, rangeMax] = (process.env.BENCH_CONF_RTP ?? '47000-47998').split('-').map(Number) as [number, number];
const RANGE = { min: rangeMin, max: rangeMax };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const ECHO = `const s = require('node:dgram').createSocket('udp4');
s.on('message', (m, r) => s.send(m, r.port, r.address));
s.bind(0, '127.0.0.1', () => console.log(s.address().port));`;

const echo = spawn(process.execPath, ['-e', ECHO], { stdio: ['ignore', 'pipe', 'inherit'] });
const echoPort = Number(await new Promise<string>((resolve) => createInterface({ input: echo.stdout! }).once('line', resolve)));
try {
  for (const conferences of STEPS) {
    const engine = new MediaEngine({ host: '127.0.0.1', range: RANGE });
    const ours = new UdpDropSampler((port) => port >= RANGE.min && port <= RANGE.max);
    const peers = new UdpDropSampler((port) => port === echoPort);
    const legs: string[] = [];
    try {
      for (let c = 0; c < conferences; c++) {
        const ids = Array.from({ length: SIZE }, (_, i) => `c${c}l${i}`);
        for (const id of ids) {
          // Each leg on the least loaded worker, as live calls are: the conference bus spans workers.
          await engine.open(id);
          await engine.setRemote(id, { address: '127.0.0.1', port: echoPort, codec: legs.length % 2 === 0 ? 'PCMU' : 'PCMA', payloadType: legs.length % 2 === 0 ? 0 : 8, dtmfPayloadType: null });
          legs.push(id);
        }
        for (const id of ids) await engine.mix(id, { bus: `c${c}`, capacity: SIZE, hears: ids.filter((other) => other !== id) });
      }
      ours.start();
      peers.start();
      await sleep(WARMUP * 1000);
      const before = await engine.stats({ reset: true });
      const t0 = performance.now();
      await sleep(WINDOW * 1000);
      const seconds = (performance.now() - t0) / 1000;
      const after = await engine.stats();
      let lost = 0;
      let late = 0;
      for (const id of legs) {
        const stats = await engine.close(id);
        lost += stats?.packetsLost ?? 0;
        late += stats?.latePackets ?? 0;
      }
      const cpuMs = (after.threadCpuMs ?? NaN) - (before.threadCpuMs ?? NaN);
      const packets = after.packetsReceived - before.packetsReceived + after.packetsSent - before.packetsSent;
      console.log(`bench:conference  ${conferences} conferences x ${SIZE} legs = ${legs.length} legs on ${after.workers} media workers; window ${seconds.toFixed(1)} s; load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
      console.log(`  media threads CPU: ${(cpuMs / 10 / seconds).toFixed(1)}% of a core, ${(cpuMs / 10 / seconds / legs.length).toFixed(3)}% per participant, ${((cpuMs * 1000) / packets).toFixed(2)} µs per packet (${packets} packets in or out)`);
      console.log(`  worst media loop p99 ${after.loopDelayP99Ms.toFixed(1)} ms; ticks late/skipped ${after.ticker.lateTicks}/${after.ticker.skippedTicks}; max lateness ${after.ticker.maxLatenessMs.toFixed(1)} ms`);
      console.log(`  RTP lost ${lost}, late ${late} (whole step); kernel drops ours/peer ${ours.stop()}/${peers.stop()}`);
    } finally {
      await engine.shutdown();
    }
  }
} finally {
  echo.kill();
}

const delays = await measureMixDelay(RANGE, Number(process.env.BENCH_CONF_DELAY_SECONDS ?? 10));
console.log('bench:conference  a click from one leg to another, jitter buffer and ticks included:');
console.log(`  ${describeDelays('through a conference, across workers', delays.crossWorker)}`);
console.log(`  ${describeDelays('through a conference, same worker', delays.sameWorker)}`);
console.log(`  ${describeDelays('through a two-party bridge (reference)', delays.bridge)}`);
