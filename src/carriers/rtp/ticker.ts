// The 20 ms media clock. Timers in Node fire late by a varying amount; scheduling each
// tick against `start + n * step` (not "a step after the last one") keeps the long-run
// rate exact, and a tick that fell behind is caught up at once rather than lost, so a
// stall never shortens what was sent. A stall longer than `maxCatchUp` periods is skipped
// (counted): bursting seconds of audio at a peer helps nobody.
//
// A period can be cut into `phases`: the clock then fires every period / phases with the
// phase number, and each leg belongs to one phase, so it still sends exactly every period
// but the legs' packets leave in several small bursts instead of one. One burst of a
// packet per leg overflowed a peer's receive buffer when all legs shared one far socket
// (SIPp's echo, or any media gateway's single port): 256 small datagrams fill the default
// 208 KiB buffer on Linux.
import { performance } from 'node:perf_hooks';

export interface TickerStats {
  /** Whole periods run. */
  ticks: number;
  /** Firings that ran later than one full period after their due time. */
  lateTicks: number;
  /** Whole periods skipped after a stall. */
  skippedTicks: number;
  /** Worst lateness seen, in milliseconds. */
  maxLatenessMs: number;
}

export class Ticker {
  private timer: NodeJS.Timeout | undefined;
  private start = 0;
  /** Steps (period / phases) run since start. */
  private next = 0;
  private readonly stepMs: number;
  readonly stats: TickerStats = { ticks: 0, lateTicks: 0, skippedTicks: 0, maxLatenessMs: 0 };

  constructor(private readonly onTick: (phase: number) => void, private readonly periodMs = 20, private readonly maxCatchUp = 10, readonly phases = 1) {
    this.stepMs = periodMs / phases;
  }

  begin(): void {
    if (this.timer) return;
    this.start = performance.now();
    this.next = 0;
    this.schedule();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Starts the counts afresh (a benchmark measures one step at a time). */
  resetStats(): void {
    Object.assign(this.stats, { ticks: 0, lateTicks: 0, skippedTicks: 0, maxLatenessMs: 0 });
  }

  get running(): boolean {
    return this.timer !== undefined;
  }

  private schedule(): void {
    const due = this.start + this.next * this.stepMs;
    this.timer = setTimeout(() => this.fire(), Math.max(0, due - performance.now()));
  }

  /** @param socketsRead the loop has read the sockets since this firing was due */
  private fire(socketsRead = false): void {
    const behindNow = Math.floor((performance.now() - this.start) / this.stepMs) - this.next;
    if (behindNow > 0 && !socketsRead) {
      // Woken late (the machine was busy): the packets that came in meanwhile still wait in
      // the sockets, and timers run before I/O in Node's loop. Playing the missed steps now
      // would play their audio as silence and then drop it as late. Let the loop read the
      // sockets first (its poll phase), and catch up just after, in its check phase.
      setImmediate(() => {
        if (this.timer) this.fire(true);
      });
      return;
    }
    const now = performance.now();
    let behind = Math.floor((now - this.start) / this.stepMs) - this.next;
    const maxBehind = this.maxCatchUp * this.phases;
    if (behind > maxBehind) {
      // Skip whole periods, so every phase keeps its place.
      const skipped = Math.ceil((behind - maxBehind) / this.phases) * this.phases;
      this.stats.skippedTicks += skipped / this.phases;
      this.next += skipped;
      behind -= skipped;
    }
    const lateness = now - (this.start + this.next * this.stepMs);
    if (lateness > this.stats.maxLatenessMs) this.stats.maxLatenessMs = lateness;
    if (lateness > this.periodMs) this.stats.lateTicks++;
    for (let i = 0; i <= behind; i++) {
      const phase = this.next % this.phases;
      this.next++;
      if (phase === 0) this.stats.ticks++;
      this.onTick(phase);
    }
    if (this.timer) this.schedule();
  }
}
