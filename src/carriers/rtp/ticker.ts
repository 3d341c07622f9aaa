// The 20 ms media clock. Timers in Node fire late by a varying amount; scheduling each
// tick against `start + n * 20 ms` (not "20 ms after the last one") keeps the long-run
// rate exact, and a tick that fell behind is caught up at once rather than lost, so a
// stall never shortens what was sent. A stall longer than `maxCatchUp` ticks is skipped
// (counted): bursting seconds of audio at a peer helps nobody.
import { performance } from 'node:perf_hooks';

export interface TickerStats {
  ticks: number;
  /** Ticks that ran later than one full period after their due time. */
  lateTicks: number;
  skippedTicks: number;
  /** Worst lateness seen, in milliseconds. */
  maxLatenessMs: number;
}

export class Ticker {
  private timer: NodeJS.Timeout | undefined;
  private start = 0;
  private next = 0;
  readonly stats: TickerStats = { ticks: 0, lateTicks: 0, skippedTicks: 0, maxLatenessMs: 0 };

  constructor(private readonly onTick: () => void, private readonly periodMs = 20, private readonly maxCatchUp = 10) {}

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
    const due = this.start + this.next * this.periodMs;
    this.timer = setTimeout(() => this.fire(), Math.max(0, due - performance.now()));
  }

  private fire(): void {
    const now = performance.now();
    let behind = Math.floor((now - this.start) / this.periodMs) - this.next;
    if (behind > this.maxCatchUp) {
      this.stats.skippedTicks += behind - this.maxCatchUp;
      this.next += behind - this.maxCatchUp;
      behind = this.maxCatchUp;
    }
    const lateness = now - (this.start + this.next * this.periodMs);
    if (lateness > this.stats.maxLatenessMs) this.stats.maxLatenessMs = lateness;
    if (lateness > this.periodMs) this.stats.lateTicks++;
    for (let i = 0; i <= behind; i++) {
      this.next++;
      this.stats.ticks++;
      this.onTick();
    }
    if (this.timer) this.schedule();
  }
}
