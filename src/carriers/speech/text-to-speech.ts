// Text-to-speech for live calls: the prompt a flow's `say` speaks, as 8 kHz PCM ready for
// the RTP engine. eSpeak NG runs in its own worker thread (espeak-worker.ts); prompts are
// cached by voice and text, because flows say the same greeting to every caller. With a
// `speech.tts` endpoint configured, OpenAiTextToSpeech (openai-speech.ts) speaks instead.
import { Worker } from 'node:worker_threads';
import { PromptCache } from './prompt-cache.ts';

export interface TextToSpeech {
  /** 8 kHz mono PCM of `text`; `language` is BCP 47 (en-US), `voice` an engine voice name. */
  synthesize(text: string, options?: { language?: string | undefined; voice?: string | undefined }): Promise<Int16Array>;
  close(): Promise<void>;
}

const DEFAULT_VOICE = 'en-us';

/** eSpeak names voices by lower-case language tags (en-us, en-gb, de, fr); anything else falls back. */
export function espeakVoice(language?: string, voice?: string): string {
  const wanted = (voice ?? language ?? DEFAULT_VOICE).toLowerCase();
  return /^[a-z]{2,3}(-[a-z0-9]{1,8})*$/.test(wanted) ? wanted : DEFAULT_VOICE;
}

export class EmbeddedTextToSpeech implements TextToSpeech {
  private worker: Worker | null = null;
  private nextRequest = 1;
  private readonly waiting = new Map<number, { resolve: (pcm: Int16Array) => void; reject: (error: Error) => void }>();
  private readonly cache = new PromptCache();

  async synthesize(text: string, options: { language?: string | undefined; voice?: string | undefined } = {}): Promise<Int16Array> {
    const voice = espeakVoice(options.language, options.voice);
    return this.cache.get(`${voice}\n${text}`, () => this.request(text, voice).catch((error: Error) => {
      if (voice === DEFAULT_VOICE) throw error;
      return this.synthesize(text, {});
    }));
  }

  /** Starts the worker (and its compile of the speech engine) ahead of the first prompt. */
  warm(): void {
    if (!this.worker) this.startWorker();
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    await worker?.terminate();
  }

  private request(text: string, voice: string): Promise<Int16Array> {
    const worker = this.worker ?? this.startWorker();
    const request = this.nextRequest++;
    return new Promise((resolve, reject) => {
      this.waiting.set(request, { resolve, reject });
      worker.postMessage({ request, text, voice });
    });
  }

  private startWorker(): Worker {
    const worker = new Worker(new URL('./espeak-worker-entry.mjs', import.meta.url));
    worker.unref();
    worker.on('message', (message: { request: number; ok: boolean; pcm?: Int16Array; error?: string }) => {
      const waiter = this.waiting.get(message.request);
      if (!waiter) return;
      this.waiting.delete(message.request);
      if (message.ok) waiter.resolve(message.pcm as Int16Array);
      else waiter.reject(new Error(message.error));
    });
    const fail = (error: Error) => {
      if (this.worker === worker) this.worker = null;
      for (const waiter of this.waiting.values()) waiter.reject(error);
      this.waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`speech worker exited with code ${code}`)));
    this.worker = worker;
    return worker;
  }
}
