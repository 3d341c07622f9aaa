// One media worker thread seen from the main thread: commands that each get one reply
// (a promise), and the worker's unasked events handed to `onEvent`. The engine (engine.ts)
// owns several of these and decides which one carries each leg.
import { Worker } from 'node:worker_threads';
import type { MediaCommand, MediaEvent, MediaReply, WorkerMessage } from './protocol.ts';

export class MediaWorkerHandle {
  private readonly worker: Worker;
  private nextRequest = 1;
  private readonly waiting = new Map<number, { resolve: (value: MediaReply) => void; reject: (error: Error) => void }>();
  private closed = false;
  /** Legs open on this worker (the engine places new legs by it). */
  legs = 0;

  constructor(onEvent: (event: MediaEvent) => void) {
    this.worker = new Worker(new URL('./worker-entry.mjs', import.meta.url));
    this.worker.on('message', (message: WorkerMessage) => {
      if (message.kind === 'event') {
        onEvent(message.event);
        return;
      }
      const waiter = this.waiting.get(message.request);
      if (!waiter) return;
      this.waiting.delete(message.request);
      if (message.ok) waiter.resolve(message.value);
      else waiter.reject(new Error(message.error));
    });
    this.worker.on('error', (error) => this.failAll(error));
    this.worker.on('exit', (code) => this.failAll(new Error(`media worker exited with code ${code}`)));
  }

  request(command: MediaCommand): Promise<MediaReply> {
    if (this.closed) return Promise.reject(new Error('media engine is shut down'));
    const request = this.nextRequest++;
    return new Promise((resolve, reject) => {
      this.waiting.set(request, { resolve, reject });
      this.worker.postMessage({ request, command });
    });
  }

  async terminate(): Promise<void> {
    this.closed = true;
    await this.worker.terminate();
  }

  private failAll(error: Error): void {
    for (const waiter of this.waiting.values()) waiter.reject(error);
    this.waiting.clear();
  }
}
