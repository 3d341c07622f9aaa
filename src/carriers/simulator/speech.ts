// Turns a simulated dialogue into a timed transcript and matching audio, so a
// sandbox recording's words can be found in its samples (redaction relies on
// this: a redacted word's time range must be exactly where its sound is).
import type { DialogueLine } from './conversation-script.ts';
import type { CallChannel, TranscriptSegment, TranscriptWord } from '../../telephony/transcript.ts';
import type { WavChannelCount, WavSampleRate } from '../../media/wav.ts';

export type { TranscriptSegment, TranscriptWord } from '../../telephony/transcript.ts';

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
  sampleRate: WavSampleRate;
  /** 2 = each party on its own channel (0 caller, 1 callee); 1 = both mixed. */
  channels: WavChannelCount;
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
 * The same as concatenating `synthesizeFrames` over any split of the duration.
 */
export function synthesizeAudio(segments: TranscriptSegment[], options: SynthesisOptions): Int16Array[] {
  const { sampleRate, durationSeconds } = options;
  if (!Number.isFinite(durationSeconds) || durationSeconds < 0) {
    throw new RangeError(`synthesizeAudio: invalid durationSeconds ${durationSeconds}`);
  }
  return synthesizeFrames(segments, options, 0, Math.round(durationSeconds * sampleRate));
}

/**
 * Frames [fromFrame, fromFrame + frameCount) of the audio `synthesizeAudio` would make, so a
 * long recording is produced slice by slice in bounded memory. Randomness is keyed by
 * position (noise by one-second block, pitch by word), never by how the audio is sliced.
 * `segments` may be only the words that overlap the slice.
 */
export function synthesizeFrames(
  segments: readonly TranscriptSegment[], options: Omit<SynthesisOptions, 'durationSeconds'>, fromFrame: number, frameCount: number,
): Int16Array[] {
  const { sampleRate, channels, seed } = options;
  // Comfort noise everywhere first: each one-second block copies the shared noise table from
  // an offset keyed by the seed and the block, so hours of it cost a copy, not a generator...
  const out = Array.from({ length: channels }, () => new Int16Array(frameCount));
  for (let i = 0; i < frameCount;) {
    const block = Math.floor((fromFrame + i) / sampleRate);
    const blockEnd = Math.min(frameCount, (block + 1) * sampleRate - fromFrame);
    const random = seededRandom(`${seed}:n:${block}`);
    for (let c = 0; c < channels; c++) {
      const start = Math.floor(random() * (NOISE.length - sampleRate)) + (fromFrame + i - block * sampleRate);
      (out[c] as Int16Array).set(NOISE.subarray(start, start + blockEnd - i), i);
    }
    i = blockEnd;
  }
  // ...then the voiced words, only where there are any (most of a long call is silence).
  for (let c = 0; c < channels; c++) {
    const words = segments.filter((segment) => channels === 1 || segment.channel === c);
    if (words.length === 0) continue;
    const voice = new Float64Array(frameCount);
    for (const segment of words) {
      for (const word of segment.words) {
        // Slight per-word pitch wander so consecutive words are audibly distinct.
        const pitch = PITCH_HZ_BY_CHANNEL[segment.channel] * (0.9 + 0.2 * seededRandom(`${seed}:w:${segment.channel}:${word.start}`)());
        addVoicedBurst(voice, sampleRate, word, pitch, fromFrame);
      }
    }
    const track = out[c] as Int16Array;
    for (let i = 0; i < frameCount; i++) {
      const v = voice[i] as number;
      if (v !== 0) track[i] = clampToInt16(Math.round(v + (track[i] as number)));
    }
  }
  return out;
}

/** Adds the part of `word` that falls in the track, whose first sample is frame `offset` of the audio. */
function addVoicedBurst(track: Float64Array, sampleRate: number, word: TranscriptWord, pitchHz: number, offset: number): void {
  const first = firstSampleAtOrAfter(word.start, sampleRate);
  const length = firstSampleAtOrAfter(word.end, sampleRate) - first;
  if (length <= 0) return;
  const attack = Math.min(Math.round(ATTACK_SECONDS * sampleRate), Math.floor(length / 2));
  const release = Math.min(Math.round(RELEASE_SECONDS * sampleRate), length - attack);
  const fromK = Math.max(0, offset - first);
  const toK = Math.min(length, offset + track.length - first);
  for (let k = fromK; k < toK; k++) {
    const envelope = Math.min(1, (k + 1) / (attack || 1), (length - k) / (release || 1));
    const phase = (2 * Math.PI * pitchHz * k) / sampleRate;
    const wave = HARMONIC_WEIGHTS.reduce((sum, weight, h) => sum + weight * Math.sin((h + 1) * phase), 0);
    const i = first + k - offset;
    track[i] = (track[i] as number) + (VOICE_PEAK * envelope * wave) / HARMONIC_SUM;
  }
}

/** Index of the first sample whose time is >= `seconds`, tolerant of float noise in ms-rounded times. */
function firstSampleAtOrAfter(seconds: number, sampleRate: number): number {
  return Math.max(0, Math.ceil(seconds * sampleRate - 1e-6));
}

/** Enough noise for any one-second block at 16 kHz to start anywhere in the first half. */
const NOISE = (() => {
  const random = seededRandom('comfort-noise');
  return Int16Array.from({ length: 4 * 16000 }, () => comfortNoise(random));
})();

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
