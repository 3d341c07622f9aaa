// A leg's share of a conference, mixed in the media worker every 20 ms: the leg writes the
// frame it took in to its slot of the conference's bus (conference-bus.ts), and sends the sum
// of this period's frames of the slots it hears (chosen on the main thread by
// telephony/conference.ts `hears`), clipped to 16 bits; or the hold tone while it is held or
// the conference waits. The bus is shared memory, so the legs may live on different workers.
import { LINE_RATE } from '../../media/call-file.ts';
import type { BusListener, ConferenceBus } from './conference-bus.ts';

/** What one leg does in its conference: where it writes, and what it hears (null: the hold tone). */
export interface LegMix {
  busId: string;
  bus: ConferenceBus;
  slot: number;
  listener: BusListener | null;
}

const HOLD_ON_SECONDS = 1;
const HOLD_CYCLE_SECONDS = 2;
const HOLD_AMPLITUDE = 4000;

/** The hold tone: 440 Hz, one second on and one off, computed once per worker. */
export const HOLD_CYCLE: Int16Array = (() => {
  const cycle = new Int16Array(LINE_RATE * HOLD_CYCLE_SECONDS);
  for (let i = 0; i < LINE_RATE * HOLD_ON_SECONDS; i++) cycle[i] = Math.round(HOLD_AMPLITUDE * Math.sin(2 * Math.PI * 440 * i / LINE_RATE));
  return cycle;
})();
