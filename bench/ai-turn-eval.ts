// npm run eval:ai-turn — how often a live caller who pauses mid-sentence is cut off, and how
// long a finished caller waits, under the fixed silence (before) and the end-of-utterance
// judgement (after, src/telephony/end-of-utterance.ts).
//
// Each line of bench/ai-turn-lines.ts is spoken by flite segment by segment, with a pause
// between segments (seeded, EVAL_TURN_PAUSE_MIN..MAX seconds, default 0.5..1.5), through the
// line's µ-law, and fed frame by frame to the media worker's own voice-activity detector
// (src/carriers/rtp/voice-activity.ts). Listening is then replayed on that timeline exactly as
// live-operations.ts's collect does it: before, a line ends 0.8 s after each "stopped talking";
// after, a partial transcript is asked for at each "stopped talking", arrives EVAL_TURN_STT
// seconds later (default 0, like the bench's local test recogniser; try 0.3 for a real one) and
// sets the quiet still to wait. The partial transcript here is an oracle (the words of every
// segment begun before the pause): a perfect recogniser, not a real one, so the figures are the
// heuristic's, not a recogniser's errors.
//
// A line is cut off when listening ends before its last segment starts. The wait is from the
// caller's last voiced frame to the transcript being ready (the engine and speech come after
// and are the same both ways: bench:ai-live measures them).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readPcm16Wav } from '../src/media/wav.ts';
import { toLineRate } from '../src/media/resample.ts';
import { decodeG711, encodeG711 } from '../src/carriers/rtp/g711.ts';
import { VoiceActivity } from '../src/carriers/rtp/voice-activity.ts';
import { judgeUtterance, quietToEnd } from '../src/telephony/end-of-utterance.ts';
import { LIVE_SPEECH_TIMEOUT_SECONDS } from '../src/modules/ai/conversations/live-runner.ts';
import { HELD_OUT, TUNING } from './ai-turn-lines.ts';

const RATE = 8000;
const FRAME = 160;
const STT = Number(process.env.EVAL_TURN_STT ?? 0);
const PAUSE_MIN = Number(process.env.EVAL_TURN_PAUSE_MIN ?? 0.5);
const PAUSE_MAX = Number(process.env.EVAL_TURN_PAUSE_MAX ?? 1.5);
/** The fixed silence before this change (live-runner's speech timeout then). */
const FIXED_SECONDS = 0.8;

function flite(text: string): Int16Array {
  const file = join(mkdtempSync(join(tmpdir(), 'eval-turn-')), 'seg.wav');
  const run = spawnSync('flite', ['-t', text, '-o', file]);
  if (run.status !== 0) throw new Error(`flite failed: ${run.stderr}`);
  const { sampleRate, samples } = readPcm16Wav(readFileSync(file));
  return toLineRate(samples, sampleRate);
}

/** A deterministic pause sequence (a linear congruential generator), so every run hears the same lines. */
function pauses(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return PAUSE_MIN + (state / 2147483648) * (PAUSE_MAX - PAUSE_MIN);
  };
}

interface Spoken { segments: { text: string; start: number; voicedEnd: number }[]; audio: Int16Array }

/** The line's segments said one after another with pauses, one second of quiet before, three after. */
function speak(line: string, nextPause: () => number): Spoken {
  const parts = line.split('|').map((s) => s.trim()).filter(Boolean);
  const chunks: Int16Array[] = [new Int16Array(RATE)];
  const segments: Spoken['segments'] = [];
  let at = RATE;
  parts.forEach((text, i) => {
    const pcm = trimQuiet(decodeG711('PCMU', encodeG711('PCMU', flite(text))));
    segments.push({ text, start: at / RATE, voicedEnd: (at + pcm.length) / RATE });
    chunks.push(pcm);
    at += pcm.length;
    const gap = new Int16Array(Math.round((i < parts.length - 1 ? nextPause() : 3) * RATE));
    chunks.push(gap);
    at += gap.length;
  });
  const audio = new Int16Array(at);
  let offset = 0;
  for (const c of chunks) {
    audio.set(c, offset);
    offset += c.length;
  }
  return { segments, audio };
}

/** flite's own leading and trailing quiet is removed, so the pauses are the ones we set. */
function trimQuiet(pcm: Int16Array): Int16Array {
  const loud = (i: number) => Math.abs(pcm[i] as number) > 300;
  let from = 0;
  let to = pcm.length;
  while (from < to && !loud(from)) from++;
  while (to > from && !loud(to - 1)) to--;
  return pcm.subarray(from, to);
}

/** The detector's transitions: [seconds, talking]. */
function transitions(audio: Int16Array): Array<[number, boolean]> {
  const vad = new VoiceActivity();
  const out: Array<[number, boolean]> = [];
  for (let f = 0; (f + 1) * FRAME <= audio.length; f++) {
    const talking = vad.accept(audio.subarray(f * FRAME, (f + 1) * FRAME));
    if (talking !== undefined) out.push([((f + 1) * FRAME) / RATE, talking]);
  }
  return out;
}

/** When listening ends and when the transcript is ready, replaying collect on the timeline. */
function listen(spoken: Spoken, adaptive: boolean): { end: number; ready: number } {
  const events = transitions(spoken.audio);
  for (let i = 0; i < events.length; i++) {
    const [quietAt, talking] = events[i]!;
    if (talking) continue;
    const resumes = events.slice(i + 1).find(([, t]) => t)?.[0] ?? Infinity;
    if (!adaptive) {
      const end = quietAt + FIXED_SECONDS;
      if (end < resumes) return { end, ready: end + STT };
      continue;
    }
    const heardAt = quietAt + STT;
    if (heardAt >= resumes) continue; // talking again: the partial transcript is dropped
    const words = spoken.segments.filter((s) => s.start < quietAt).map((s) => s.text).join(' ');
    const end = Math.max(heardAt, quietAt + quietToEnd(judgeUtterance(words), LIVE_SPEECH_TIMEOUT_SECONDS));
    if (end < resumes) return { end, ready: end };
  }
  return { end: Infinity, ready: Infinity };
}

function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : NaN;
}

function score(name: string, lines: string[], seed: number): void {
  const spokenLines = lines.map((line, n) => ({ line, spoken: speak(line, pauses(seed + n)) }));
  const paused = spokenLines.filter(({ spoken }) => spoken.segments.length > 1).length;
  for (const adaptive of [false, true]) {
    const cut: string[] = [];
    const waits: number[] = [];
    for (const { line, spoken } of spokenLines) {
      const { end, ready } = listen(spoken, adaptive);
      const last = spoken.segments.at(-1)!;
      if (end < last.start) cut.push(line);
      else waits.push(ready - last.voicedEnd);
    }
    waits.sort((a, b) => a - b);
    const label = adaptive ? 'after (judged)' : `before (fixed ${FIXED_SECONDS} s)`;
    console.log(`  ${name.padEnd(9)} ${label.padEnd(20)} cut off ${String(cut.length).padStart(2)}/${paused} paused lines (${lines.length} lines)  wait p50 ${percentile(waits, 50).toFixed(2)} s  p95 ${percentile(waits, 95).toFixed(2)} s`);
    if (process.env.EVAL_TURN_VERBOSE) for (const line of cut) console.log(`      cut: ${line}`);
  }
}

console.log(`eval:ai-turn  pauses ${PAUSE_MIN}..${PAUSE_MAX} s, partial transcript after ${STT} s (oracle recogniser), voice-activity quiet 0.3 s included in the wait`);
// EVAL_TURN_SETS=tuning while adjusting the word lists: the held-out set is scored only to report.
const sets = (process.env.EVAL_TURN_SETS ?? 'tuning,held-out').split(',');
if (sets.includes('tuning')) score('tuning', TUNING, 1);
if (sets.includes('held-out')) score('held-out', HELD_OUT, 1001);
