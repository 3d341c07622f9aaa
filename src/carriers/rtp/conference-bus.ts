// A conference's audio bus: shared memory (a SharedArrayBuffer) where every leg of one
// conference writes the frame it took in each 20 ms, and from which every leg sums the frames
// of those it hears. Shared memory is what lets a conference's legs live on different media
// workers: a leg's socket cannot move between threads, but its frames can be read by any of
// them at once, with no message and no extra copy in between.
//
// Each slot is a ring of RING frames and a count of frames written (the count is stored after
// the frame, with Atomics, so a reader that sees count n can read frames below n whole). A
// reader keeps its own cursor per source and reads each frame once: a new frame when one has
// come, silence when none has (the source stopped sending, or its worker's tick is a moment
// late; the reader then stays a frame behind, which is its slack). A cursor more than
// MAX_BEHIND frames behind skips ahead, so jitter between two workers' clocks never builds up
// into delay.
export const FRAME_SAMPLES = 160;
const RING = 8;
const MAX_BEHIND = 2;

export class ConferenceBus {
  private readonly counts: Int32Array;
  private readonly frames: Int16Array;

  /** A view of the bus in `buffer` (made by `create` on the main thread, shared with the workers). */
  constructor(readonly buffer: SharedArrayBuffer) {
    const capacity = ConferenceBus.capacityOf(buffer);
    this.counts = new Int32Array(buffer, 0, capacity);
    this.frames = new Int16Array(buffer, capacity * 4, capacity * RING * FRAME_SAMPLES);
  }

  static create(capacity: number): ConferenceBus {
    return new ConferenceBus(new SharedArrayBuffer(capacity * (4 + RING * FRAME_SAMPLES * 2)));
  }

  static capacityOf(buffer: SharedArrayBuffer): number {
    return buffer.byteLength / (4 + RING * FRAME_SAMPLES * 2);
  }

  /** Appends `frame` (160 samples) to `slot`'s ring. */
  write(slot: number, frame: Int16Array): void {
    const count = Atomics.load(this.counts, slot);
    this.frames.set(frame, (slot * RING + (count % RING)) * FRAME_SAMPLES);
    Atomics.store(this.counts, slot, count + 1);
  }

  /** Frames written to `slot` so far. */
  written(slot: number): number {
    return Atomics.load(this.counts, slot);
  }

  /**
   * Adds `slot`'s next unread frame (after `cursor`) into `sum`; returns the new cursor. A
   * cursor of -1 starts at the slot's latest frame.
   */
  addNext(slot: number, cursor: number, sum: Int32Array): number {
    const written = Atomics.load(this.counts, slot);
    let at = cursor < 0 || written - cursor > MAX_BEHIND + 1 ? written - 1 : cursor;
    if (at < 0 || at >= written) return Math.max(at, 0);
    const start = (slot * RING + (at % RING)) * FRAME_SAMPLES;
    for (let i = 0; i < FRAME_SAMPLES; i++) (sum[i] as number) += this.frames[start + i] as number;
    at++;
    return at;
  }
}

/** One listener of a bus: the slots it hears and where it is in each. */
export class BusListener {
  private cursors: number[];
  private readonly sum = new Int32Array(FRAME_SAMPLES);

  constructor(readonly bus: ConferenceBus, readonly hears: readonly number[]) {
    this.cursors = hears.map(() => -1);
  }

  /** The sum of this tick's frames of every heard slot, clipped to 16 bits, added onto `out`. */
  mixInto(out: Int16Array): void {
    const { sum } = this;
    for (let i = 0; i < FRAME_SAMPLES; i++) sum[i] = out[i] as number;
    for (let k = 0; k < this.hears.length; k++) this.cursors[k] = this.bus.addNext(this.hears[k] as number, this.cursors[k] as number, sum);
    for (let i = 0; i < FRAME_SAMPLES; i++) {
      const s = sum[i] as number;
      out[i] = s > 32767 ? 32767 : s < -32768 ? -32768 : s;
    }
  }

  /** A listener hearing `hears` now, keeping its place in the slots it heard already. */
  rehear(hears: readonly number[]): BusListener {
    const next = new BusListener(this.bus, hears);
    next.cursors = hears.map((slot) => {
      const k = this.hears.indexOf(slot);
      return k === -1 ? -1 : (this.cursors[k] as number);
    });
    return next;
  }
}
