// `switchboard carriers check` for the speech endpoints: each is asked exactly what a live
// call will ask, with the real key. Text-to-speech speaks a short phrase (and must answer
// audio we can read); speech-to-text is sent half a second of silence (and must answer the
// verbose JSON we parse). Both cost a fraction of a cent on a paid API.
import type { CarrierLink, ProbeResult } from '../config/registry.ts';
import type { SpeechToTextConfig, TextToSpeechConfig } from './config.ts';
import { OpenAiTextToSpeech } from './openai-tts.ts';
import { OpenAiSpeechToText } from './speech-to-text.ts';
import { LINE_RATE } from '../../media/call-file.ts';

const PHRASE = 'Switchboard speech check.';

export async function probeSpeechLink(link: CarrierLink, timeoutMs: number): Promise<ProbeResult> {
  const capped = <T extends { timeout_seconds: number }>(config: T): T => ({ ...config, timeout_seconds: Math.min(config.timeout_seconds, timeoutMs / 1000) });
  try {
    if (link.path.endsWith('.tts')) {
      const config = capped(link.config as TextToSpeechConfig);
      let failure: Error | null = null;
      // No fallback here: the check is about the endpoint, not about eSpeak.
      const unreachable = { synthesize: async () => new Int16Array(0), close: async () => {} };
      const pcm = await new OpenAiTextToSpeech(config, unreachable, (err) => { failure = err; }).synthesize(PHRASE);
      if (failure) return { ok: false, detail: (failure as Error).message };
      return { ok: true, detail: `spoke "${PHRASE}": ${(pcm.length / LINE_RATE).toFixed(1)} s of ${config.response_format} with ${config.model} (${config.voice})` };
    }
    const config = capped(link.config as SpeechToTextConfig);
    const heard = await new OpenAiSpeechToText(config).transcribe(new Int16Array(LINE_RATE / 2));
    return { ok: true, detail: `transcribed half a second of silence with ${config.model}: ${JSON.stringify(heard.text)}, ${heard.words.length} timed words` };
  } catch (err) {
    return { ok: false, detail: (err as Error).message };
  }
}
