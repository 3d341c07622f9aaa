// Text-to-speech through an OpenAI-compatible POST {base_url}/v1/audio/speech: JSON
// `{model, input, voice, response_format}` in, a WAV (any rate) or raw 16-bit PCM out, resampled
// to the line's 8 kHz. A caller must never hear silence because an API is down: a voice the
// server refuses is retried with the configured one, and any other failure speaks the prompt
// with the embedded engine instead (and logs why). Prompts are cached like eSpeak's.
import type { TextToSpeechConfig } from './config.ts';
import { postAudioApi, SpeechServiceError } from './openai-audio.ts';
import { toLineRate } from '../../media/resample.ts';
import { readPcm16Wav } from '../../media/wav.ts';
import { PromptCache } from './prompt-cache.ts';
import type { TextToSpeech } from './text-to-speech.ts';

type SpeakOptions = { language?: string | undefined; voice?: string | undefined };

export class OpenAiTextToSpeech implements TextToSpeech {
  private readonly cache = new PromptCache();

  constructor(
    private readonly config: TextToSpeechConfig,
    private readonly fallback: TextToSpeech,
    private readonly log: (err: Error, text: string) => void,
  ) {}

  async synthesize(text: string, options: SpeakOptions = {}): Promise<Int16Array> {
    const voice = options.voice ?? this.config.voice;
    try {
      return await this.fromEndpoint(text, voice);
    } catch (err) {
      let error = err as Error;
      if (voice !== this.config.voice && error instanceof SpeechServiceError && error.status === 400) {
        try {
          return await this.fromEndpoint(text, this.config.voice);
        } catch (again) {
          error = again as Error;
        }
      }
      this.log(error, text);
      return this.fallback.synthesize(text, { language: options.language });
    }
  }

  async close(): Promise<void> {
    await this.fallback.close();
  }

  private fromEndpoint(text: string, voice: string): Promise<Int16Array> {
    return this.cache.get(`${voice}\n${text}`, async () => {
      const { model, response_format: format } = this.config;
      const response = await postAudioApi(this.config, '/v1/audio/speech', JSON.stringify({ model, input: text, voice, response_format: format }), {
        'content-type': 'application/json',
      });
      const body = new Uint8Array(await response.arrayBuffer());
      const { url } = response;
      try {
        if (format === 'wav') {
          const { sampleRate, samples } = readPcm16Wav(body);
          return toLineRate(samples, sampleRate);
        }
        // Raw PCM: 16-bit little-endian mono at the configured rate (copied: the body may be unaligned).
        const samples = new Int16Array(Math.floor(body.length / 2));
        const view = new DataView(body.buffer, body.byteOffset, samples.length * 2);
        for (let i = 0; i < samples.length; i++) samples[i] = view.getInt16(i * 2, true);
        return toLineRate(samples, this.config.pcm_sample_rate);
      } catch (err) {
        throw new SpeechServiceError(url, `answered audio we cannot read as ${format}: ${(err as Error).message}`);
      }
    });
  }
}
