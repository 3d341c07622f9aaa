// The main thread's handle on the media worker: promise-returning commands and a stream
// of per-leg events (digits, latching, finished prompts). Nothing here touches packets.
import { Worker } from 'node:worker_threads';
import { EventEmitter } from 'node:events';
import type { PortRange } from './port-range.ts';
import type { EngineStats, MediaCommand, MediaEvent, MediaReply, RemoteMedia, SessionStats, WorkerMessage } from './protocol.ts';
import type { WavStreamResult } from './wav-stream.ts';

export interface MediaEngineOptions {
  /** Address RTP sockets bind to. */
  host: string;
  range: PortRange;
}

export class MediaEngine {
  private readonly worker: Worker;
  private nextRequest = 1;
  private readonly waiting = new Map<number, { resolve: (value: MediaReply) => void; reject: (error: Error) => void }>();
  /** Emits `event` for every MediaEvent, and `<type>:<leg id>` for listeners of one leg. */
  readonly events = new EventEmitter();
  private closed = false;

  constructor(private readonly options: MediaEngineOptions) {
    this.events.setMaxListeners(0);
    this.worker = new Worker(new URL('./worker-entry.mjs', import.meta.url));
    this.worker.on('message', (message: WorkerMessage) => this.receive(message));
    this.worker.on('error', (error) => this.failAll(error));
    this.worker.on('exit', (code) => this.failAll(new Error(`media worker exited with code ${code}`)));
  }

  async open(id: string): Promise<number> {
    const reply = await this.request({ op: 'open', id, host: this.options.host, range: this.options.range });
    return (reply as { port: number }).port;
  }

  async setRemote(id: string, remote: RemoteMedia): Promise<void> {
    await this.request({ op: 'remote', id, remote });
  }

  /** Queues 8 kHz PCM on the leg; resolves when it has been sent (or was interrupted). */
  play(id: string, pcm: Int16Array): Promise<{ interrupted: boolean }> {
    const playId = `p${this.nextRequest++}`;
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
    await this.request({ op: 'bridge', id, peer });
  }

  async close(id: string): Promise<SessionStats | undefined> {
    return ((await this.request({ op: 'close', id })) as { stats?: SessionStats }).stats;
  }

  async stats(options: { reset?: boolean } = {}): Promise<EngineStats> {
    return ((await this.request({ op: 'stats', reset: options.reset === true })) as { engine: EngineStats }).engine;
  }

  async shutdown(): Promise<void> {
    this.closed = true;
    await this.worker.terminate();
  }

  private request(command: MediaCommand): Promise<MediaReply> {
    if (this.closed) return Promise.reject(new Error('media engine is shut down'));
    const request = this.nextRequest++;
    return new Promise((resolve, reject) => {
      this.waiting.set(request, { resolve, reject });
      this.worker.postMessage({ request, command });
    });
  }

  private receive(message: WorkerMessage): void {
    if (message.kind === 'event') {
      this.dispatch(message.event);
      return;
    }
    const waiter = this.waiting.get(message.request);
    if (!waiter) return;
    this.waiting.delete(message.request);
    if (message.ok) waiter.resolve(message.value);
    else waiter.reject(new Error(message.error));
  }

  private dispatch(event: MediaEvent): void {
    this.events.emit('event', event);
    if (event.type === 'played') this.events.emit(`played:${event.id}:${event.playId}`, event);
    else this.events.emit(`${event.type}:${event.id}`, event);
  }

  private failAll(error: Error): void {
    for (const waiter of this.waiting.values()) waiter.reject(error);
    this.waiting.clear();
  }
}
