// Turns packets that arrive late, early, twice or not at all into a steady stream of
// samples. Packets are placed on a sample timeline by their RTP timestamp, so reordering
// is undone by position; a gap nobody filled plays as silence (loss); a packet that
// arrives after its samples were played is dropped and counted as late. Playout runs
// `depthSamples` behind the first packet, which is the reordering window.

interface Slot {
  /** Samples from the start of the timeline. */
  offset: number;
  pcm: Int16Array;
}

export interface JitterStats {
  /** Packets dropped because their time had already been played. */
  late: number;
  /** Samples played as silence while a stream was running (lost or not yet arrived). */
  concealedSamples: number;
  /** Packets whose samples were already in the buffer. */
  duplicates: number;
}

/** Beyond this a timestamp is a new stream (new source, restart), not a late or early packet. */
const RESYNC_SAMPLES = 8000 * 4;
/** Media held before the leg is connected: the far end talks from its 200 OK, and a busy main thread may take a second to connect us. */
export const EARLY_HOLD_SAMPLES = RESYNC_SAMPLES - 8000;

export class JitterBuffer {
  private slots: Slot[] = [];
  private position = 0;
  private base: number | undefined;
  private ssrc: number | undefined;
  private playing = false;
  private lateStreak = 0;
  readonly stats: JitterStats = { late: 0, concealedSamples: 0, duplicates: 0 };

  /**
   * @param depthSamples reordering window (60 ms at 8 kHz by default)
   * @param maxAheadSamples a sender whose clock runs fast fills the buffer; beyond this we skip ahead
   */
  constructor(private readonly depthSamples = 480, private readonly maxAheadSamples = 8000) {}

  /**
   * @param maxAhead how far ahead of playout the buffer may run before it skips; media that
   *   arrives before the leg is connected passes a larger bound so none of it is dropped
   */
  push(ssrc: number, timestamp: number, pcm: Int16Array, maxAhead = this.maxAheadSamples): void {
    if (this.base === undefined || ssrc !== this.ssrc) this.rebase(ssrc, timestamp);
    let offset = ((timestamp - (this.base as number)) | 0);
    if (Math.abs(offset - this.position) > RESYNC_SAMPLES) {
      this.rebase(ssrc, timestamp);
      offset = ((timestamp - (this.base as number)) | 0);
    }
    if (offset + pcm.length <= this.position) {
      this.stats.late++;
      // A sender whose clock runs slow falls behind for good: after a few late packets in
      // a row, move the timeline so its packets play again (one gap instead of silence).
      if (++this.lateStreak < 3) return;
      this.rebase(ssrc, timestamp);
      offset = ((timestamp - (this.base as number)) | 0);
    }
    this.lateStreak = 0;
    // Keep slots sorted by offset; arrivals are nearly always in order, so search from the end.
    let i = this.slots.length;
    while (i > 0 && (this.slots[i - 1] as Slot).offset > offset) i--;
    if (i > 0 && (this.slots[i - 1] as Slot).offset === offset) {
      this.stats.duplicates++;
      return;
    }
    this.slots.splice(i, 0, { offset, pcm });
    const last = this.slots[this.slots.length - 1] as Slot;
    const ahead = last.offset + last.pcm.length - this.position;
    if (ahead > maxAhead) this.position += ahead - this.depthSamples;
  }

  /** The next `length` samples of the stream, silence where nothing arrived. */
  pull(out: Int16Array): Int16Array {
    out.fill(0);
    const start = this.position;
    const end = start + out.length;
    let covered = 0;
    while (this.slots.length > 0) {
      const slot = this.slots[0] as Slot;
      if (slot.offset >= end) break;
      const from = Math.max(start, slot.offset);
      const to = Math.min(end, slot.offset + slot.pcm.length);
      if (to > from) {
        out.set(slot.pcm.subarray(from - slot.offset, to - slot.offset), from - start);
        covered += to - from;
      }
      if (slot.offset + slot.pcm.length <= end) this.slots.shift();
      else break;
    }
    // Silence before the stream's first sample is the reordering delay, not loss.
    if (covered > 0) this.playing = true;
    if (this.playing) this.stats.concealedSamples += out.length - covered;
    this.position = end;
    return out;
  }

  /** Samples waiting to be played. */
  get buffered(): number {
    const last = this.slots[this.slots.length - 1];
    return last ? Math.max(0, last.offset + last.pcm.length - this.position) : 0;
  }

  private rebase(ssrc: number, timestamp: number): void {
    // The new stream's first packet plays `depthSamples` from now.
    this.ssrc = ssrc;
    this.base = (timestamp - (this.position + this.depthSamples)) >>> 0;
    this.slots = [];
  }
}
