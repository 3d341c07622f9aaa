// What a leg's media streams hear of the far end (stream-leg.ts `inbound`), in 20 ms frames.
// The call plays and records the far end through a 60 ms jitter buffer, read on the 20 ms
// tick; a stream is sent each frame the moment its audio has arrived in order, so it adds no
// wait of its own (docs/benchmarks.md, media streams). The tick is only the deadline: a frame
// whose audio is more than three frames overdue goes as silence (then its packet, if it comes,
// is dropped as late), and while the far end sends nothing (before its first packet, on hold) a
// frame of silence goes every tick, so the stream still gets one every 20 ms.
//
// Overdue is measured on the far end's own clock: against when the frame's audio would have
// come had the far end kept the pace of its quickest packet so far, in real time. Counting from
// the stream's first tick instead put the deadline of every frame at the moment its audio was
// due: a stream starts before the far end's first packet (it speaks once answered), the silence
// sent meanwhile runs three frames behind the tick, and the far end's first frame comes next, so
// a packet later than the first by a few milliseconds (or a 30 ms packet, which completes a
// frame and a half) was cut. Ticks are no clock for it either: after a stall, the media worker
// reads the packets that waited (rtp/ticker.ts) and then plays the missed ticks at once.
import { performance } from 'node:perf_hooks';
import { LINE_FRAME_SAMPLES as FRAME_SAMPLES } from '../streams/audio-format.ts';

const FRAME_MS = 20;
/** How long the quickest packet sets the pace before the next window's quickest takes over. */
const PACE_WINDOW_MS = 2000;
const SAMPLES_PER_MS = FRAME_SAMPLES / FRAME_MS;

/**
 * How many frames (of 20 ms) behind the far end's pace a packet may come before its audio is
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
  /** Ticks since the first stream came: the deadline until the far end's first packet. */
  private ticks = 0;
  /**
   * The far end's pace, in ms of `now`: the least, over its recent packets on this timeline, of
   * when one came minus the ms of audio it reaches, so the audio up to sample s was due by
   * pace + s / SAMPLES_PER_MS. Undefined until its first packet.
   */
  private pace: number | undefined;
  /** The least of the current window's packets, and when that window began (see PACE_WINDOW_MS). */
  private windowPace: number | undefined;
  private windowStart = 0;
  private readonly frame = new Int16Array(FRAME_SAMPLES);

  /** @param now milliseconds on a steady clock (a test passes its own) */
  constructor(private readonly hear: (pcm: Int16Array) => void, private readonly now: () => number = () => performance.now()) {}

  /** A packet's decoded audio: every frame now complete in order is sent at once. */
  push(ssrc: number, timestamp: number, pcm: Int16Array): void {
    if (this.base === undefined || ssrc !== this.ssrc || Math.abs(((timestamp - this.base) | 0) - this.position) > RESYNC_SAMPLES) {
      this.ssrc = ssrc;
      this.base = (timestamp - this.position) >>> 0;
      this.slots = [];
      this.pace = undefined; // a new timeline keeps its own pace
      this.windowPace = undefined;
    }
    const offset = (timestamp - this.base) | 0;
    if (offset + pcm.length <= this.position) return; // its frame already went (as silence)
    let i = this.slots.length;
    while (i > 0 && (this.slots[i - 1] as Slot).offset > offset) i--;
    if (i > 0 && (this.slots[i - 1] as Slot).offset === offset) return; // a duplicate
    this.slots.splice(i, 0, { offset, pcm });
    this.keepPace(this.now(), offset + pcm.length);
    while (this.complete()) this.send();
  }

  /** The 20 ms tick: a frame more than OVERDUE_FRAMES overdue goes now, with what arrived of it. */
  tick(): void {
    this.ticks += 1;
    const now = this.now();
    while (this.overdue(now)) this.send();
    // Past a lost packet, what arrived after it may be whole now.
    while (this.complete()) this.send();
  }

  /**
   * A packet reaching sample `reaches` came at `now`. An early packet sets the pace at once; a
   * late one never does, but the pace is also taken again from each window's quickest packet,
   * so it follows a far end whose clock runs slower than ours (sound cards and carriers drift by
   * up to hundreds of parts per million): kept from the call's first packet, the pace would fall
   * behind such a far end by 60 ms within minutes, and from then on every frame would go as
   * silence just before its packet came.
   */
  private keepPace(now: number, reaches: number): void {
    const pace = now - reaches / SAMPLES_PER_MS;
    if (this.pace === undefined) {
      this.pace = pace;
      this.windowStart = now;
    } else if (pace < this.pace) {
      this.pace = pace;
    }
    if (this.windowPace === undefined || pace < this.windowPace) this.windowPace = pace;
    // Only ever later than the pace it replaces by what the far end fell behind: a window of
    // late packets widens the deadline, never narrows it.
    if (now - this.windowStart >= PACE_WINDOW_MS) {
      this.pace = this.windowPace;
      this.windowPace = undefined;
      this.windowStart = now;
    }
  }

  /**
   * Whether the next frame's audio is more than OVERDUE_FRAMES late: against the far end's pace
   * once it has sent; until then against the ticks, so silence comes one frame a tick.
   */
  private overdue(now: number): boolean {
    if (this.pace === undefined) return this.ticks - this.position / FRAME_SAMPLES > OVERDUE_FRAMES;
    const dueAt = this.pace + (this.position + FRAME_SAMPLES) / SAMPLES_PER_MS;
    return now - dueAt > OVERDUE_FRAMES * FRAME_MS;
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
    this.hear(this.frame);
  }
}
