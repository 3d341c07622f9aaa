// What live calls speak and hear with, from the carriers file's `speech` section: the
// configured OpenAI-compatible endpoints, else eSpeak NG for speaking and nothing for
// hearing (speech `gather` is then refused, and live recordings get no transcript).
import type { SpeechSectionConfig } from './config.ts';
import { OpenAiTextToSpeech } from './openai-tts.ts';
import { OpenAiSpeechToText, type SpeechToText } from './speech-to-text.ts';
import { EmbeddedTextToSpeech, type TextToSpeech } from './text-to-speech.ts';

export interface SpeechServices {
  tts: TextToSpeech;
  /** Null when no `speech.stt` endpoint is configured: nothing on a live call hears words. */
  stt: SpeechToText | null;
  /** Gets the embedded engine compiling before the first caller, when it is the voice. */
  warm(): void;
  close(): Promise<void>;
}

export function speechServices(section: SpeechSectionConfig | undefined, log: (err: Error, detail: string) => void): SpeechServices {
  const embedded = new EmbeddedTextToSpeech();
  const tts = section?.tts
    ? new OpenAiTextToSpeech(section.tts, embedded, (err, text) => log(err, `speech.tts failed; eSpeak NG spoke "${text.slice(0, 60)}" instead`))
    : embedded;
  return {
    tts,
    stt: section?.stt ? new OpenAiSpeechToText(section.stt) : null,
    warm: () => {
      if (!section?.tts) embedded.warm();
    },
    close: () => tts.close(),
  };
}
