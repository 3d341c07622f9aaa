// Turns a simulated dialogue into a timed transcript and matching audio, so a
// sandbox recording's words can be found in its samples (redaction relies on
// this: a redacted word's time range must be exactly where its sound is).
import type { CallChannel, DialogueLine } from './conversation-script.ts';
import type { TranscriptSegment, TranscriptWord } from '../../modules/recordings/transcript.ts';

export type { TranscriptSegment, TranscriptWord } from '../../modules/recordings/transcript.ts';

export interface DialogueTiming {
  /** Seconds into the recording at which the first line starts. */
  startAt: number;
  wordsPerSecond?: number;
  /** Silence between consecutive lines. */
  gapSeconds?: number;
}

export function timeDialogue(lines: DialogueLine[], timing: DialogueTiming): TranscriptSegment[] {
  const { startAt, wordsPerSecond = 3, gapSeconds = 0.4 } = timing;
  if (!(wordsPerSecond > 0) || !(gapSeconds >= 0) || !(startAt >= 0)) {
    throw new RangeError('timeDialogue: startAt and gapSeconds must be >= 0 and wordsPerSecond > 0');
  }
  const wordSeconds = 1 / wordsPerSecond;
  let cursor = startAt;
  return lines.map((line) => {
    const tokens = line.text.split(/\s+/).filter((token) => token !== '');
    // Every boundary comes from the same expression, so one word's end is
    // bit-identical to the next word's start after rounding.
    const boundary = (index: number) => toMilliseconds(cursor + index * wordSeconds);
    const segment: TranscriptSegment = {
      channel: line.channel,
      speaker: line.speaker,
      start: boundary(0),
      end: boundary(tokens.length),
      text: line.text,
      words: tokens.map((text, i) => ({ text, start: boundary(i), end: boundary(i + 1) })),
    };
    cursor += tokens.length * wordSeconds + gapSeconds;
    return segment;
  });
}

function toMilliseconds(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}

export interface SynthesisOptions {
  sampleRate: 8000 | 16000;
  /** 2 = each party on its own channel (0 caller, 1 callee); 1 = both mixed. */
  channels: 1 | 2;
  durationSeconds: number;
  seed: string;
}

const VOICE_PEAK = 8000;
// Relative strengths of the fundamental and its overtones: enough harmonics to
// sound voiced, all well below the 4 kHz Nyquist limit of 8 kHz audio.
const HARMONIC_WEIGHTS = [1, 0.5, 0.25];
const HARMONIC_SUM = HARMONIC_WEIGHTS.reduce((sum, weight) => sum + weight, 0);
const PITCH_HZ_BY_CHANNEL: Record<CallChannel, number> = { 0: 120, 1: 210 };
const ATTACK_SECONDS = 0.015;
const RELEASE_SECONDS = 0.04;
const COMFORT_NOISE_PEAK = 40;

/**
 * One Int16Array per output channel. Each word is a voiced burst confined to
 * [word.start, word.end); everything else is low comfort noise that is never
 * exactly 0, so digital silence in the output can only come from redaction.
 */
export function synthesizeAudio(segments: TranscriptSegment[], options: SynthesisOptions): Int16Array[] {
  const { sampleRate, channels, durationSeconds, seed } = options;
  if (!Number.isFinite(durationSeconds) || durationSeconds < 0) {
    throw new RangeError(`synthesizeAudio: invalid durationSeconds ${durationSeconds}`);
  }
  const frameCount = Math.round(durationSeconds * sampleRate);
  const random = seededRandom(seed);
  const voice = Array.from({ length: channels }, () => new Float64Array(frameCount));

  for (const segment of segments) {
    const track = voice[channels === 2 ? segment.channel : 0] as Float64Array;
    for (const word of segment.words) {
      // Slight per-word pitch wander so consecutive words are audibly distinct.
      const pitch = PITCH_HZ_BY_CHANNEL[segment.channel] * (0.9 + 0.2 * random());
      addVoicedBurst(track, sampleRate, word, pitch);
    }
  }

  return voice.map((track) => {
    const out = new Int16Array(frameCount);
    for (let i = 0; i < frameCount; i++) {
      out[i] = clampToInt16(Math.round((track[i] as number) + comfortNoise(random)));
    }
    return out;
  });
}

function addVoicedBurst(track: Float64Array, sampleRate: number, word: TranscriptWord, pitchHz: number): void {
  const first = firstSampleAtOrAfter(word.start, sampleRate);
  const end = Math.min(firstSampleAtOrAfter(word.end, sampleRate), track.length);
  const length = end - first;
  if (length <= 0) return;
  const attack = Math.min(Math.round(ATTACK_SECONDS * sampleRate), Math.floor(length / 2));
  const release = Math.min(Math.round(RELEASE_SECONDS * sampleRate), length - attack);
  for (let k = 0; k < length; k++) {
    const envelope = Math.min(1, (k + 1) / (attack || 1), (length - k) / (release || 1));
    const phase = (2 * Math.PI * pitchHz * k) / sampleRate;
    const wave = HARMONIC_WEIGHTS.reduce((sum, weight, h) => sum + weight * Math.sin((h + 1) * phase), 0);
    track[first + k] = (track[first + k] as number) + (VOICE_PEAK * envelope * wave) / HARMONIC_SUM;
  }
}

/** Index of the first sample whose time is >= `seconds`, tolerant of float noise in ms-rounded times. */
function firstSampleAtOrAfter(seconds: number, sampleRate: number): number {
  return Math.max(0, Math.ceil(seconds * sampleRate - 1e-6));
}

/** Uniform over [-PEAK, -1] and [1, PEAK]: never 0, so no window of noise is digital silence. */
function comfortNoise(random: () => number): number {
  const magnitude = 1 + Math.floor(random() * COMFORT_NOISE_PEAK);
  return random() < 0.5 ? -magnitude : magnitude;
}

function clampToInt16(value: number): number {
  return Math.max(-32768, Math.min(32767, value));
}

/** mulberry32 seeded from an FNV-1a hash of the seed string: tiny, fast, deterministic. */
function seededRandom(seed: string): () => number {
  let state = 0x811c9dc5;
  for (let i = 0; i < seed.length; i++) {
    state = Math.imul(state ^ seed.charCodeAt(i), 0x01000193) >>> 0;
  }
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
