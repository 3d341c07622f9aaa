// The ringback tone a caller hears while a second leg (a transfer, a flow's dial) rings and
// the far end sends no early media: North American ringback (ANSI T1.401), 440 Hz plus
// 480 Hz, two seconds on and four off, at about -20 dBFS per tone. One cadence, computed
// once per worker and read frame by frame by every ringing leg.
import { LINE_RATE } from '../../media/call-file.ts';

const ON_SECONDS = 2;
const CYCLE_SECONDS = 6;
const AMPLITUDE = 3000;

export const RINGBACK_CYCLE: Int16Array = (() => {
  const cycle = new Int16Array(LINE_RATE * CYCLE_SECONDS);
  for (let i = 0; i < LINE_RATE * ON_SECONDS; i++) {
    const t = i / LINE_RATE;
    cycle[i] = Math.round(AMPLITUDE * (Math.sin(2 * Math.PI * 440 * t) + Math.sin(2 * Math.PI * 480 * t)));
  }
  return cycle;
})();
