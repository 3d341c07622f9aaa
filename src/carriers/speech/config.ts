// The `speech` section of the carriers file: OpenAI-compatible audio endpoints for live calls.
// `tts` replaces the embedded eSpeak NG voice with POST {base_url}/v1/audio/speech; `stt`
// turns callers' speech into text with POST {base_url}/v1/audio/transcriptions (speech
// `gather`, live recording transcripts, the AI receptionist). Either may be left out: without
// `tts` prompts are spoken by eSpeak NG, without `stt` nothing on a live call hears words.
// Any server that speaks OpenAI's audio API works: OpenAI itself, or one run locally.
import { Type, type Static } from 'typebox';
import { Secret } from '../config/secrets.ts';

const BaseUrl = Type.String({
  pattern: '^https?://[^\\s/?#]+(/[^\\s?#]*)?$',
  description: 'Origin (and optional path prefix) of the API: requests go to {base_url}/v1/audio/...',
});
const ApiKey = Type.Optional(Secret('Sent as `Authorization: Bearer`; leave out for a server that wants none.'));
const Timeout = (fallback: number) => Type.Number({ exclusiveMinimum: 0, maximum: 300, default: fallback, description: 'Seconds one request may take.' });

export const TextToSpeechConfig = Type.Object({
  base_url: BaseUrl,
  api_key: ApiKey,
  model: Type.String({ minLength: 1, default: 'tts-1' }),
  voice: Type.String({ minLength: 1, default: 'alloy', description: 'Used when a `say` names no voice (or one the server refuses).' }),
  response_format: Type.Union([Type.Literal('wav'), Type.Literal('pcm')], { default: 'wav' }),
  pcm_sample_rate: Type.Integer({ minimum: 8000, maximum: 48000, default: 24000, description: 'Rate of `pcm` answers (OpenAI sends 24 kHz); a WAV says its own.' }),
  timeout_seconds: Timeout(15),
}, { additionalProperties: false });
export type TextToSpeechConfig = Static<typeof TextToSpeechConfig>;

export const SpeechToTextConfig = Type.Object({
  base_url: BaseUrl,
  api_key: ApiKey,
  model: Type.String({ minLength: 1, default: 'whisper-1' }),
  language: Type.Optional(Type.String({ pattern: '^[a-z]{2,3}$', description: 'ISO 639-1 code sent with every request (en); left out, the server detects it.' })),
  timeout_seconds: Timeout(30),
}, { additionalProperties: false });
export type SpeechToTextConfig = Static<typeof SpeechToTextConfig>;

export const SpeechSectionConfig = Type.Object({
  tts: Type.Optional(TextToSpeechConfig),
  stt: Type.Optional(SpeechToTextConfig),
}, { additionalProperties: false, minProperties: 1 });
export type SpeechSectionConfig = Static<typeof SpeechSectionConfig>;

/** The section's two links; their names hold a dot, so no trunk or bind can take them. */
export const SPEECH_LINK = { tts: 'speech.tts', stt: 'speech.stt' } as const;

export function trimmed(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '');
}
