// The audio a verb plays (a `play`, a gather's play prompt: each verb's `audio` hook): a 16-bit PCM WAV fetched with a
// GET under the webhook URL policy (the same guarded connection pool as flow webhooks), at
// most AUDIO_MAX_BYTES, checked to be a WAV we can play, and cached on disk by URL (the
// SHA-256 of the URL names the file) so a prompt every caller hears is fetched once. A
// sidecar records its duration, which the sandbox's media needs to time the play. Fetches run
// in a durable job outside any transaction (interpreter.ts); nothing here throws for a bad URL.
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type * as Undici from 'undici';
import { lazyRequire } from '../../../platform/lazy-require.ts';
import type { Mode } from '../../../store/platform-tables.ts';
import type { Config } from '../../../config.ts';
import { checkUrlShape } from '../../webhooks/url-policy.ts';
import { readPcm16Wav } from '../../../media/wav.ts';
import type { FlowWebhookClient } from './flow-webhook.ts';
import { definitionOf, type Verb } from './verbs/registry.ts';
import type { CachedAudio } from './cached-audio.ts';

/** Loaded on first use (see platform/lazy-require.ts). */
const undici = lazyRequire<typeof Undici>('undici');

/** A prompt is a few minutes of telephone audio at most; larger answers are refused. */
export const AUDIO_MAX_BYTES = 10 * 1024 * 1024;
const AUDIO_TIMEOUT_MS = 10_000;

export type { CachedAudio };

export type AudioFetch = { ok: true; audio: CachedAudio } | { ok: false; detail: string };

export class FlowAudio {
  private readonly dir: string;

  constructor(private readonly config: Config, private readonly http: FlowWebhookClient) {
    this.dir = join(config.dataDir, 'flow-audio');
  }

  private base(url: string): string {
    return join(this.dir, createHash('sha256').update(url).digest('hex'));
  }

  /** The cached audio of `url`, or null when it was never fetched. */
  async cached(url: string): Promise<CachedAudio | null> {
    try {
      const meta = JSON.parse(await readFile(`${this.base(url)}.json`, 'utf8')) as { seconds: number };
      return { path: `${this.base(url)}.wav`, seconds: meta.seconds };
    } catch {
      return null;
    }
  }

  /** Fetches `url` into the cache (unless there already), under the URL policy of `mode`. */
  async fetch(url: string, mode: Mode): Promise<AudioFetch> {
    const hit = await this.cached(url);
    if (hit) return { ok: true, audio: hit };
    let bytes: Buffer;
    try {
      const parsed = checkUrlShape(url, mode, this.config);
      const res = await undici().request(parsed, {
        method: 'GET', headers: { accept: 'audio/wav, audio/x-wav' },
        dispatcher: this.http.agentFor(mode, parsed.protocol), signal: AbortSignal.timeout(AUDIO_TIMEOUT_MS),
      });
      const chunks: Buffer[] = [];
      let total = 0;
      for await (const chunk of res.body) {
        total += chunk.length;
        if (total > AUDIO_MAX_BYTES) {
          res.body.destroy();
          return { ok: false, detail: `${url} is larger than ${AUDIO_MAX_BYTES} bytes.` };
        }
        chunks.push(chunk);
      }
      if (res.statusCode < 200 || res.statusCode >= 300) return { ok: false, detail: `${url} answered ${res.statusCode}.` };
      bytes = Buffer.concat(chunks);
    } catch (err) {
      const e = err as { code?: string; message?: string };
      return { ok: false, detail: `${url} could not be fetched: ${`${e.code ?? ''} ${e.message ?? ''}`.trim()}`.slice(0, 500) };
    }
    let seconds: number;
    try {
      const { sampleRate, samples } = readPcm16Wav(bytes);
      if (!sampleRate) throw new Error('its sample rate is 0');
      seconds = Math.round((samples.length / sampleRate) * 1000) / 1000;
    } catch (err) {
      return { ok: false, detail: `${url} is not a WAV we can play (16-bit PCM): ${(err as Error).message}.` };
    }
    // Written under temporary names and renamed: a reader never sees half a file.
    await mkdir(this.dir, { recursive: true });
    const base = this.base(url);
    const tmp = `${base}.${process.pid}.${Date.now()}`;
    await writeFile(`${tmp}.wav`, bytes);
    await rename(`${tmp}.wav`, `${base}.wav`);
    await writeFile(`${tmp}.json`, JSON.stringify({ url, seconds }));
    await rename(`${tmp}.json`, `${base}.json`);
    return { ok: true, audio: { path: `${base}.wav`, seconds } };
  }
}

/** The audio URLs a verb plays (its `audio` hook: a play verb's, a gather's play prompts'). */
export function audioUrlsOf(verb: Verb): string[] {
  const { body, def } = definitionOf(verb);
  return def.audio?.(body) ?? [];
}
