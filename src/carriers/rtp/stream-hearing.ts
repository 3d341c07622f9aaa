// What a leg's media streams hear of the far end (stream-leg.ts `inbound`), in 20 ms frames.
// The call plays and records the far end through a 60 ms jitter buffer, read on the 20 ms
// tick; a stream is sent each frame the moment its audio has arrived in order, so it adds no
// wait of its own (docs/benchmarks.md, media streams). The tick is only the deadline: a frame
// whose audio is more than three frames overdue goes as silence (then its packet, if it comes,
// is dropped as late), and while the far end sends nothing (before its first packet, on hold) a
// frame of silence goes every tick, so the stream still gets one every 20 ms.
import { LINE_FRAME_SAMPLES as FRAME_SAMPLES } from '../streams/audio-format.ts';

/**
 * How many frames behind the clock the stream may fall waiting for a packet before it is
 * given up as lost: the call's own reordering window (jitter-buffer.ts, 60 ms), so the stream
 * loses no more to jitter than the call does. Frames that arrive in order do not wait for it.
 */
const OVERDUE_FRAMES = 3;

/** Beyond this a timestamp is a new stream (new source, restart), not a late or early packet. */
const RESYNC_SAMPLES = 8000 * 4;

interface Slot {
  /** Samples from the timeline's start. */
  offset: number;
  pcm: Int16Array;
}

export class StreamHearing {
  private slots: Slot[] = [];
  /** The next frame's first sample on the timeline; the far end's first packet starts it. */
  private position = 0;
  private base: number | undefined;
  private ssrc: number | undefined;
  /** Ticks since the first stream came, and frames sent since: the deadline keeps them within OVERDUE_FRAMES. */
  private ticks = 0;
  private sent = 0;
  private readonly frame = new Int16Array(FRAME_SAMPLES);

  constructor(private readonly hear: (pcm: Int16Array) => void) {}

  /** A packet's decoded audio: every frame now complete in order is sent at once. */
  push(ssrc: number, timestamp: number, pcm: Int16Array): void {
    if (this.base === undefined || ssrc !== this.ssrc || Math.abs(((timestamp - this.base) | 0) - this.position) > RESYNC_SAMPLES) {
      this.ssrc = ssrc;
      this.base = (timestamp - this.position) >>> 0;
      this.slots = [];
    }
    const offset = (timestamp - this.base) | 0;
    if (offset + pcm.length <= this.position) return; // its frame already went (as silence)
    let i = this.slots.length;
    while (i > 0 && (this.slots[i - 1] as Slot).offset > offset) i--;
    if (i > 0 && (this.slots[i - 1] as Slot).offset === offset) return; // a duplicate
    this.slots.splice(i, 0, { offset, pcm });
    while (this.complete()) this.send();
  }

  /** The 20 ms tick: a frame more than OVERDUE_FRAMES overdue goes now, with what arrived of it. */
  tick(): void {
    this.ticks += 1;
    while (this.sent < this.ticks - OVERDUE_FRAMES) this.send();
    // Past a lost packet, what arrived after it may be whole now.
    while (this.complete()) this.send();
  }

  /** Whether the samples of the next frame have all arrived. */
  private complete(): boolean {
    let covered = this.position;
    for (const slot of this.slots) {
      if (slot.offset > covered) return false;
      covered = Math.max(covered, slot.offset + slot.pcm.length);
      if (covered >= this.position + FRAME_SAMPLES) return true;
    }
    return false;
  }

  /** Sends the next frame (silence where nothing arrived) and moves on. */
  private send(): void {
    const start = this.position;
    const end = start + FRAME_SAMPLES;
    this.frame.fill(0);
    while (this.slots.length > 0) {
      const slot = this.slots[0] as Slot;
      if (slot.offset >= end) break;
      const from = Math.max(start, slot.offset);
      const to = Math.min(end, slot.offset + slot.pcm.length);
      if (to > from) this.frame.set(slot.pcm.subarray(from - slot.offset, to - slot.offset), from - start);
      if (slot.offset + slot.pcm.length <= end) this.slots.shift();
      else break;
    }
    this.position = end;
    this.sent += 1;
    this.hear(this.frame);
  }
}
