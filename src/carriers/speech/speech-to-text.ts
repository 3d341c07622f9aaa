// Speech-to-text for live calls through an OpenAI-compatible POST
// {base_url}/v1/audio/transcriptions: the caller's audio as an 8 kHz 16-bit WAV in a
// multipart form with `response_format=verbose_json` and `timestamp_granularities[]=word`,
// so the answer carries each word's start and end (recording transcripts and redaction
// need them). The API gives no confidence; the segments' average log-probability does:
// confidence is the mean of exp(avg_logprob) over them, or null when the server sends none.
import type { SpeechToTextConfig } from './config.ts';
import { postAudioApi, SpeechServiceError } from './openai-audio.ts';
import { LINE_RATE } from '../../media/call-file.ts';
import { encodeWav } from '../../media/wav.ts';

export interface HeardWord {
  text: string;
  /** Seconds from the start of the audio given. */
  start: number;
  end: number;
}

export interface Transcription {
  text: string;
  confidence: number | null;
  words: HeardWord[];
}

export interface SpeechToText {
  /** The words in 8 kHz mono `pcm`; `language` is BCP 47 or ISO 639-1, `hints` words likely said. */
  transcribe(pcm: Int16Array, options?: { language?: string | undefined; hints?: string[] | undefined }): Promise<Transcription>;
}

interface VerboseJson {
  text?: unknown;
  words?: { word?: unknown; start?: unknown; end?: unknown }[];
  segments?: { start?: unknown; end?: unknown; text?: unknown; avg_logprob?: unknown }[];
}

export class OpenAiSpeechToText implements SpeechToText {
  constructor(private readonly config: SpeechToTextConfig) {}

  async transcribe(pcm: Int16Array, options: { language?: string | undefined; hints?: string[] | undefined } = {}): Promise<Transcription> {
    const form = new FormData();
    form.set('file', new Blob([new Uint8Array(encodeWav({ sampleRate: LINE_RATE, channels: 1, samples: [pcm] }))], { type: 'audio/wav' }), 'audio.wav');
    form.set('model', this.config.model);
    form.set('response_format', 'verbose_json');
    form.append('timestamp_granularities[]', 'word');
    form.append('timestamp_granularities[]', 'segment');
    const language = this.config.language ?? options.language?.split('-')[0]?.toLowerCase();
    if (language) form.set('language', language);
    // Whisper reads the prompt as text that came before: the likely words steer its spelling.
    if (options.hints?.length) form.set('prompt', options.hints.join(', '));
    const response = await postAudioApi(this.config, '/v1/audio/transcriptions', form);
    let body: VerboseJson;
    try {
      body = await response.json() as VerboseJson;
    } catch {
      throw new SpeechServiceError(response.url, 'answered something that is not JSON (is response_format=verbose_json supported?)');
    }
    if (typeof body.text !== 'string') throw new SpeechServiceError(response.url, 'answered JSON without `text`');
    return { text: body.text.trim(), confidence: confidenceOf(body), words: wordsOf(body) };
  }
}

function seconds(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
}

/** Word timestamps as sent; a server that only times segments has its words spread over each. */
function wordsOf(body: VerboseJson): HeardWord[] {
  const words: HeardWord[] = [];
  for (const w of body.words ?? []) {
    const start = seconds(w.start);
    const end = seconds(w.end);
    if (typeof w.word === 'string' && w.word.trim() && start !== null && end !== null) words.push({ text: w.word.trim(), start, end: Math.max(start, end) });
  }
  if (words.length > 0) return words;
  for (const s of body.segments ?? []) {
    const start = seconds(s.start);
    const end = seconds(s.end);
    const parts = typeof s.text === 'string' ? s.text.trim().split(/\s+/).filter(Boolean) : [];
    if (start === null || end === null || parts.length === 0) continue;
    const each = Math.max(0, end - start) / parts.length;
    parts.forEach((text, i) => words.push({ text, start: start + i * each, end: start + (i + 1) * each }));
  }
  return words;
}

function confidenceOf(body: VerboseJson): number | null {
  const logprobs = (body.segments ?? []).map((s) => s.avg_logprob).filter((p): p is number => typeof p === 'number' && Number.isFinite(p));
  if (logprobs.length === 0) return null;
  const mean = logprobs.reduce((sum, p) => sum + Math.exp(Math.min(0, p)), 0) / logprobs.length;
  return Math.round(mean * 1000) / 1000;
}
