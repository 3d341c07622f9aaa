// The main thread's handle on the media workers: promise-returning commands and a stream
// of per-leg events (digits, latching, finished prompts). Nothing here touches packets.
//
// Media runs on `workers` threads (by default one per CPU core): one thread carried 200
// recorded calls (20,000 packets a second) with little CPU to spare, and on a busy machine
// its 20 ms clock then fell behind. Each leg lives on one worker from open to close, placed
// on the worker with the fewest legs; a leg that will be bridged to another (a transfer's
// or a dial's second leg) is opened `alongside` it, because a bridge relays frames in
// memory within one thread.
import { EventEmitter } from 'node:events';
import { availableParallelism } from 'node:os';
import type { PortRange } from './port-range.ts';
import type { EngineStats, MediaCommand, MediaEvent, MediaReply, RemoteMedia, SessionStats, WorkerStreamOrder } from './protocol.ts';
import type { StreamStopReason } from '../../telephony/media-streams.ts';
import type { WavStreamResult } from '../../media/wav-stream.ts';
import { MediaWorkerHandle } from './worker-handle.ts';
import { BusSeats } from './bus-seats.ts';

export interface MediaEngineOptions {
  /** Address RTP sockets bind to. */
  host: string;
  range: PortRange;
  /** Media worker threads; by default one per CPU core (at most 8). */
  workers?: number | undefined;
}

export class MediaEngine {
  private readonly workers: MediaWorkerHandle[];
  /** The worker each open leg lives on. */
  private readonly placement = new Map<string, MediaWorkerHandle>();
  private nextPlay = 1;
  private lastPlaced = -1;
  private readonly buses = new BusSeats();
  /** The worker each conference recording is taken on. */
  private readonly taps = new Map<string, MediaWorkerHandle>();
  /** The bus each conference leg writes to. */
  private readonly busOf = new Map<string, string>();
  /** Emits `event` for every MediaEvent, and `<type>:<leg id>` for listeners of one leg. */
  readonly events = new EventEmitter();

  constructor(private readonly options: MediaEngineOptions) {
    this.events.setMaxListeners(0);
    const count = Math.max(1, Math.min(16, options.workers ?? Math.min(8, availableParallelism())));
    this.workers = Array.from({ length: count }, () => new MediaWorkerHandle((event) => this.dispatch(event)));
  }

  /** Opens a leg; `alongside` names a leg it will be bridged to, which must share its worker. */
  async open(id: string, options: { alongside?: string } = {}): Promise<number> {
    if (this.placement.has(id)) throw new Error(`media session ${id} is already open`);
    const worker = (options.alongside && this.placement.get(options.alongside)) || this.leastLoaded();
    this.placement.set(id, worker);
    worker.legs++;
    try {
      const reply = await worker.request({ op: 'open', id, host: this.options.host, range: this.options.range });
      return (reply as { port: number }).port;
    } catch (error) {
      this.forget(id);
      throw error;
    }
  }

  async setRemote(id: string, remote: RemoteMedia): Promise<void> {
    await this.request({ op: 'remote', id, remote });
  }

  /** Queues 8 kHz PCM on the leg; resolves when it has been sent (or was interrupted). */
  play(id: string, pcm: Int16Array): Promise<{ interrupted: boolean }> {
    const playId = `p${this.nextPlay++}`;
    return new Promise((resolve, reject) => {
      this.events.once(`played:${id}:${playId}`, (event: { interrupted: boolean }) => resolve({ interrupted: event.interrupted }));
      this.request({ op: 'play', id, playId, pcm }).catch(reject);
    });
  }

  async stopPlayback(id: string): Promise<void> {
    await this.request({ op: 'stop_playback', id });
  }

  async sendDigits(id: string, digits: string): Promise<void> {
    await this.request({ op: 'digits', id, digits });
  }

  async startRecording(id: string, path: string): Promise<void> {
    await this.request({ op: 'record', id, path });
  }

  async stopRecording(id: string): Promise<WavStreamResult | null> {
    return ((await this.request({ op: 'stop_recording', id })) as { recording: WavStreamResult | null }).recording;
  }

  async bridge(id: string, peer: string | null): Promise<void> {
    if (peer !== null && this.placement.get(peer) !== this.placement.get(id)) {
      throw new Error(`media legs ${id} and ${peer} are on different workers (open the second alongside the first)`);
    }
    await this.request({ op: 'bridge', id, peer });
  }

  /**
   * What a conference leg hears from now (conference-mix.ts): on the bus `bus` (made with room
   * for `capacity` legs when its first leg joins), the sum of the legs `hears`, or the hold tone
   * (`hears` null); `null` takes the leg off its bus. The legs may live on any workers.
   */
  async mix(id: string, mix: { bus: string; capacity: number; hears: string[] | null } | null): Promise<void> {
    if (mix === null) {
      const bus = this.busOf.get(id);
      if (bus !== undefined) this.buses.leave(bus, id);
      this.busOf.delete(id);
      await this.request({ op: 'mix', id, mix: null });
      return;
    }
    const previous = this.busOf.get(id);
    if (previous !== undefined && previous !== mix.bus) this.buses.leave(previous, id);
    this.busOf.set(id, mix.bus);
    const { buffer, slot, slotsOf } = this.buses.seat(mix.bus, mix.capacity, id);
    await this.request({ op: 'mix', id, mix: { bus: mix.bus, buffer, slot, hears: mix.hears === null ? null : slotsOf(mix.hears) } });
  }

  /**
   * Records the room of bus `bus` (room-tap.ts) into `path` as recording `id`: the sum of the
   * legs in `hears`. Called again with the same id, it changes whom the room hears.
   */
  async tap(id: string, tap: { bus: string; capacity: number; hears: string[]; path: string }): Promise<void> {
    let worker = this.taps.get(id);
    if (!worker) {
      worker = this.leastLoaded();
      this.taps.set(id, worker);
    }
    const { buffer, slotsOf } = this.buses.slots(tap.bus, tap.capacity);
    await worker.request({ op: 'tap', id, buffer, hears: slotsOf(tap.hears), path: tap.path });
  }

  /** Plays `pcm` over the room recording `id` hears (what its participants hear over the room); no-op without that recording. */
  async tapOverlay(id: string, pcm: Int16Array): Promise<void> {
    await this.taps.get(id)?.request({ op: 'tap_overlay', id, pcm });
  }

  /** Stops recording `id`; its file is complete when this resolves (null: there was none). */
  async stopTap(id: string): Promise<WavStreamResult | null> {
    const worker = this.taps.get(id);
    if (!worker) return null;
    this.taps.delete(id);
    return ((await worker.request({ op: 'stop_tap', id })) as { recording: WavStreamResult | null }).recording;
  }

  /**
   * Runs a media stream on the leg, in its worker (stream-leg.ts): the worker connects and
   * streams; how it went comes back as `stream` events. Rejects when the leg is not open.
   */
  async startStream(id: string, order: WorkerStreamOrder): Promise<void> {
    await this.request({ op: 'stream', id, order });
  }

  /** Stops a stream of the leg (it reports `ended` with `reason`); nothing when the leg or stream is gone. */
  async stopStream(id: string, streamId: string, reason: StreamStopReason): Promise<void> {
    if (!this.placement.has(id)) return;
    await this.request({ op: 'stop_stream', id, streamId, reason });
  }

  /**
   * The server is closing: every leg's streams send `stop` with `reason` and report `ended`
   * (as `stream` events); resolves once their sockets have closed.
   */
  async stopAllStreams(reason: StreamStopReason): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.request({ op: 'stop_streams', reason })));
  }

  /** Starts or stops the ringback tone on a leg whose second leg is ringing (see ringback.ts). */
  async ringback(id: string, on: boolean): Promise<void> {
    await this.request({ op: 'ringback', id, on });
  }

  async close(id: string): Promise<SessionStats | undefined> {
    const worker = this.placement.get(id);
    if (!worker) return undefined;
    const bus = this.busOf.get(id);
    if (bus !== undefined) this.buses.leave(bus, id);
    this.busOf.delete(id);
    try {
      return ((await worker.request({ op: 'close', id })) as { stats?: SessionStats }).stats;
    } finally {
      this.forget(id);
    }
  }

  /** Figures summed over the workers (loop delay and lateness: the worst worker's). */
  async stats(options: { reset?: boolean } = {}): Promise<EngineStats> {
    const each = await Promise.all(this.workers.map(async (worker) => ((await worker.request({ op: 'stats', reset: options.reset === true })) as { engine: EngineStats }).engine));
    const sum = (pick: (stats: EngineStats) => number) => each.reduce((total, stats) => total + pick(stats), 0);
    const max = (pick: (stats: EngineStats) => number) => Math.max(...each.map(pick));
    return {
      workers: each.length,
      sessions: sum((s) => s.sessions),
      ticker: { ticks: sum((s) => s.ticker.ticks), lateTicks: sum((s) => s.ticker.lateTicks), skippedTicks: sum((s) => s.ticker.skippedTicks), maxLatenessMs: max((s) => s.ticker.maxLatenessMs) },
      loopDelayP99Ms: max((s) => s.loopDelayP99Ms),
      threadCpuMs: each.some((s) => s.threadCpuMs === null) ? null : sum((s) => s.threadCpuMs as number),
      packetsReceived: sum((s) => s.packetsReceived),
      packetsSent: sum((s) => s.packetsSent),
    };
  }

  async shutdown(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.terminate()));
  }

  /** Fewest legs first; among equals, the one after the last chosen (so a burst alternates). */
  private leastLoaded(): MediaWorkerHandle {
    let best = -1;
    for (let k = 1; k <= this.workers.length; k++) {
      const i = (this.lastPlaced + k) % this.workers.length;
      if (best === -1 || (this.workers[i] as MediaWorkerHandle).legs < (this.workers[best] as MediaWorkerHandle).legs) best = i;
    }
    this.lastPlaced = best;
    return this.workers[best] as MediaWorkerHandle;
  }

  private forget(id: string): void {
    const worker = this.placement.get(id);
    if (!worker) return;
    this.placement.delete(id);
    worker.legs--;
  }

  private request(command: Exclude<MediaCommand, { op: 'open' | 'close' | 'stats' | 'tap' | 'stop_tap' | 'stop_streams' }>): Promise<MediaReply> {
    const worker = this.placement.get(command.id);
    if (!worker) return Promise.reject(new Error(`no media session ${command.id}`));
    return worker.request(command);
  }

  private dispatch(event: MediaEvent): void {
    this.events.emit('event', event);
    if (event.type === 'played') this.events.emit(`played:${event.id}:${event.playId}`, event);
    else this.events.emit(`${event.type}:${event.id}`, event);
  }
}
