// Preloaded into a spawned server by a bench (NODE_OPTIONS=--import): measures the main thread's
// event-loop delay with perf_hooks.monitorEventLoopDelay (10 ms resolution) without any code in
// the server itself. On SIGUSR2 it writes the delay since the last signal (ms: max, p99, mean,
// count) to LOOP_DELAY_FILE and starts a new window.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { writeFileSync } from 'node:fs';

const file = process.env.LOOP_DELAY_FILE;
if (file) {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  let window = 0;
  process.on('SIGUSR2', () => {
    const ms = (ns) => Math.round(ns / 1e4) / 100;
    window += 1;
    writeFileSync(file, JSON.stringify({ window, max: ms(histogram.max), p99: ms(histogram.percentile(99)), mean: ms(histogram.mean), count: histogram.count }));
    histogram.reset();
  });
}
