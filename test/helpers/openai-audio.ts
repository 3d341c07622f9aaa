// A local stand-in for OpenAI's audio API, implementing its documented request and response
// shapes (https://platform.openai.com/docs/api-reference/audio): POST /v1/audio/speech takes
// JSON {model, input, voice, response_format} and answers a WAV (24 kHz, 16-bit mono) or raw
// 24 kHz PCM; POST /v1/audio/transcriptions takes a multipart form (file, model,
// response_format=verbose_json, timestamp_granularities[]) and answers verbose JSON with
// `text`, `words` [{word, start, end}] and `segments`. Both want `Authorization: Bearer KEY`
// and answer OpenAI's error object otherwise.
//
// No real recogniser runs here, so it "recognises" by a documented, deterministic rule over
// the audio it really receives: a test teaches it reference clips (8 kHz PCM and the words they
// say); the uploaded WAV's 20 ms energy envelope is compared (Pearson correlation, at the best
// alignment) with each reference's, and the best one above 0.8 whose span covers the upload's
// voiced audio (so a clip of a line's first words is not heard in the whole line) is what was
// said. Its words are
// spread evenly over the reference's voiced stretch and shifted to where it sits in the upload.
// Anything else (silence, noise) is heard as "". The speech it synthesises is a tone per
// character of the input (`fakeSpeech`), so a test can tell it from eSpeak NG's.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { encodeWav } from '../../src/media/wav.ts';
import { toLineRate } from '../../src/media/resample.ts';
import { readPcm16Wav } from '../../src/media/wav.ts';
import { sentencesOf } from '../../src/carriers/speech/sentences.ts';

export const FAKE_TTS_RATE = 24000;
const FRAME = 160; // 20 ms at 8 kHz
const VOICED_RMS = 500;

/** What the fake "speaks" for `text`: 60 ms of a tone per character (300..2160 Hz), at 24 kHz. */
export function fakeSpeech(text: string): Int16Array {
  const per = Math.round(0.06 * FAKE_TTS_RATE);
  const chars = [...text].slice(0, 80);
  const out = new Int16Array(chars.length * per);
  chars.forEach((c, n) => {
    const hz = 300 + ((c.codePointAt(0) as number) % 32) * 60;
    for (let i = 0; i < per; i++) out[n * per + i] = Math.round(8000 * Math.sin((2 * Math.PI * hz * i) / FAKE_TTS_RATE));
  });
  return out;
}

/**
 * What the fake speaks for a live AI agent's turn: the agent asks for it sentence by sentence
 * (SpeakOp.bySentence) and the pieces play back to back.
 */
export function fakeSpeechBySentence(text: string): Int16Array {
  const pieces = sentencesOf(text).map(fakeSpeech);
  const out = new Int16Array(pieces.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const piece of pieces) {
    out.set(piece, at);
    at += piece.length;
  }
  return out;
}

/**
 * The carriers file's `speech:` section pointing both endpoints at a fake server, its key read
 * from `keyEnv` (the test sets that variable): YAML lines, for startLiveVoice's `sections` or a
 * file of one's own.
 */
export function speechSection(api: Pick<FakeOpenAiAudio, 'baseUrl'>, keyEnv: string, ttsModel = 'tts-1'): string[] {
  return [
    'speech:',
    `  tts: { base_url: "${api.baseUrl}", api_key: "env:${keyEnv}", model: ${ttsModel}, voice: nova }`,
    `  stt: { base_url: "${api.baseUrl}", api_key: "env:${keyEnv}", model: whisper-1 }`,
  ];
}

export interface SpeechRequestSeen {
  path: string;
  authorization: string | undefined;
  /** JSON body fields (speech), or the form's text fields (transcriptions; repeated ones joined by ","). */
  fields: Record<string, string>;
  /** The uploaded audio at 8 kHz (transcriptions). */
  audio?: Int16Array;
  /** What the fake heard in it. */
  heard?: string;
}

export interface FakeOpenAiAudio {
  baseUrl: string;
  requests: SpeechRequestSeen[];
  /** Teaches the recogniser that `pcm` (8 kHz) says `text`. */
  teach(text: string, pcm: Int16Array): void;
  /** Texts whose synthesis answers 500 (the server is "down" for them). */
  failSpeech: Set<string>;
  close(): Promise<void>;
}

function envelope(pcm: Int16Array): Float64Array {
  const out = new Float64Array(Math.floor(pcm.length / FRAME));
  for (let f = 0; f < out.length; f++) {
    let sum = 0;
    for (let i = f * FRAME; i < (f + 1) * FRAME; i++) sum += (pcm[i] as number) ** 2;
    out[f] = Math.sqrt(sum / FRAME);
  }
  return out;
}

function pearson(a: Float64Array, b: Float64Array, lag: number): number {
  let n = 0, sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i + lag] ?? 0;
    n++; sa += x; sb += y; saa += x * x; sbb += y * y; sab += x * y;
  }
  const cov = sab - (sa * sb) / n;
  const va = saa - (sa * sa) / n;
  const vb = sbb - (sb * sb) / n;
  return va <= 0 || vb <= 0 ? 0 : cov / Math.sqrt(va * vb);
}

interface Reference { text: string; envelope: Float64Array; voicedFrom: number; voicedTo: number }

/** At most 10 voiced frames (200 ms) of the upload lie outside the reference's voiced stretch placed at `lag`. */
function covers(ref: Reference, heard: Float64Array, lag: number): boolean {
  let outside = 0;
  for (let f = 0; f < heard.length; f++) {
    if ((heard[f] as number) >= VOICED_RMS && (f < ref.voicedFrom + lag || f >= ref.voicedTo + lag)) outside++;
  }
  return outside <= 10;
}

function recognise(references: Reference[], upload: Int16Array): { text: string; score: number; words: { word: string; start: number; end: number }[] } {
  const heard = envelope(upload);
  let best: { ref: Reference; lag: number; score: number } | null = null;
  for (const ref of references) {
    for (let lag = -Math.floor(ref.envelope.length / 4); lag <= heard.length - Math.ceil((ref.envelope.length * 3) / 4); lag++) {
      if (!covers(ref, heard, lag)) continue;
      const score = pearson(ref.envelope, heard, lag);
      if (!best || score > best.score) best = { ref, lag, score };
    }
  }
  if (!best || best.score < 0.8) return { text: '', score: best?.score ?? 0, words: [] };
  const words = best.ref.text.split(/\s+/).filter(Boolean);
  const from = (best.ref.voicedFrom + best.lag) * 0.02;
  const each = ((best.ref.voicedTo - best.ref.voicedFrom) * 0.02) / words.length;
  const at = (t: number) => Math.max(0, Math.round(t * 1000) / 1000);
  return { text: best.ref.text, score: best.score, words: words.map((word, i) => ({ word, start: at(from + i * each), end: at(from + (i + 1) * each) })) };
}

export async function startFakeOpenAiAudio(apiKey: string): Promise<FakeOpenAiAudio> {
  const references: Reference[] = [];
  const fake: FakeOpenAiAudio = {
    baseUrl: '',
    requests: [],
    failSpeech: new Set(),
    teach(text, pcm) {
      const env = envelope(pcm);
      const voiced = [...env.keys()].filter((i) => (env[i] as number) >= VOICED_RMS);
      references.push({ text, envelope: env, voicedFrom: voiced[0] ?? 0, voicedTo: (voiced.at(-1) ?? env.length - 1) + 1 });
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks);
        const path = (req.url ?? '').split('?')[0] ?? '';
        const seen: SpeechRequestSeen = { path, authorization: req.headers.authorization, fields: {} };
        fake.requests.push(seen);
        const error = (status: number, message: string, type = 'invalid_request_error') => {
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { message, type, param: null, code: null } }));
        };
        if (req.headers.authorization !== `Bearer ${apiKey}`) return error(401, 'Incorrect API key provided.', 'invalid_api_key');
        if (req.method === 'POST' && path === '/v1/audio/speech') {
          const json = JSON.parse(body.toString('utf8')) as Record<string, string>;
          seen.fields = json;
          if (!json.input || !json.model || !json.voice) return error(400, 'input, model and voice are required');
          if (!['alloy', 'echo', 'nova'].includes(json.voice)) return error(400, `Invalid voice: ${json.voice}`);
          if (fake.failSpeech.has(json.input)) return error(500, 'The server had an error while processing your request.', 'server_error');
          const pcm = fakeSpeech(json.input);
          if (json.response_format === 'pcm') {
            res.writeHead(200, { 'content-type': 'audio/pcm' });
            return res.end(Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength));
          }
          // OpenAI streams its WAV with the sizes left at their maximum; the reader must cope.
          const wav = encodeWav({ sampleRate: 16000, channels: 1, samples: [new Int16Array(0)] });
          const header = Buffer.from(wav.subarray(0, 44));
          header.writeUInt32LE(FAKE_TTS_RATE, 24);
          header.writeUInt32LE(FAKE_TTS_RATE * 2, 28);
          header.writeUInt32LE(0xffffffff, 4);
          header.writeUInt32LE(0xffffffff, 40);
          res.writeHead(200, { 'content-type': 'audio/wav' });
          return res.end(Buffer.concat([header, Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength)]));
        }
        if (req.method === 'POST' && path === '/v1/audio/transcriptions') {
          const form = await new Response(body, { headers: { 'content-type': req.headers['content-type'] ?? '' } }).formData();
          for (const [key, value] of form.entries()) {
            if (typeof value === 'string') seen.fields[key] = seen.fields[key] ? `${seen.fields[key]},${value}` : value;
          }
          const file = form.get('file');
          if (!file || typeof file === 'string') return error(400, 'file is required');
          if (!form.get('model')) return error(400, 'model is required');
          const { sampleRate, samples } = readPcm16Wav(new Uint8Array(await file.arrayBuffer()));
          const audio = toLineRate(samples, sampleRate);
          seen.audio = audio;
          const { text, score, words } = recognise(references, audio);
          seen.heard = text;
          const duration = audio.length / 8000;
          const verbose = form.get('response_format') === 'verbose_json';
          const wantWords = form.getAll('timestamp_granularities[]').includes('word');
          res.writeHead(200, { 'content-type': 'application/json' });
          return res.end(JSON.stringify(verbose ? {
            task: 'transcribe', language: 'english', duration, text,
            ...(wantWords ? { words } : {}),
            segments: text ? [{ id: 0, seek: 0, start: words[0]?.start ?? 0, end: words.at(-1)?.end ?? duration, text: ` ${text}`, tokens: [], temperature: 0, avg_logprob: Math.log(Math.max(0.01, score)), compression_ratio: 1, no_speech_prob: 0.01 }] : [],
          } : { text }));
        }
        error(404, `Invalid URL (${req.method} ${path})`);
      })().catch((err: Error) => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: err.message, type: 'server_error' } }));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
