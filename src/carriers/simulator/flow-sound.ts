// What a sandbox call with a flow sounds like: the flow's side speaks its say lines (at the
// simulator's pace) and plays its WAV prompts; the far end says what a developer or a caller
// script makes it say. Both are kept as a timeline in talk seconds (SimState.sound) as the
// operations run, so a recording of the call (`record: true`, or POST /v1/calls/{id}/recordings)
// is made from what was really heard: the transcript is the said lines with their times, and
// the audio is those words (synthesised like every sandbox voice) plus the played files,
// each party on its own channel of a stereo recording. Pure functions: media.ts stores the
// timeline and renders it.
import type { CallRef } from '../../telephony/call-ref.ts';
import { speakerOn, type Speaker, type TranscriptSegment } from '../../telephony/transcript.ts';
import type { MediaOp, PromptOp } from '../../telephony/media-ops.ts';
import type { CallChannel } from '../../telephony/transcript.ts';
import { timeDialogue } from './speech.ts';

/** The simulated text-to-speech and the simulated far end speak at the same pace. */
export const SPEECH_WORDS_PER_SECOND = 3;
export const SPEECH_GAP_SECONDS = 0.4;

const round3 = (s: number) => Math.round(s * 1000) / 1000;

/** A WAV prompt played from `start` to `end` (talk seconds), looping the file of `fileSeconds`. */
export interface PlayedAudio {
  channel: CallChannel;
  path: string;
  fileSeconds: number;
  start: number;
  end: number;
  /** Seconds into the file at `start` (non-zero once clipped into a recording's span). */
  offset: number;
}

/** Everything heard on the call so far, in talk seconds. */
export interface CallSound {
  segments: TranscriptSegment[];
  plays: PlayedAudio[];
}

/**
 * Stereo recordings put the caller on channel 0 and the called party on 1: the flow is the
 * called party of an inbound call and the caller of an outbound one.
 */
export function flowChannel(call: Pick<CallRef, 'direction'>): CallChannel {
  return call.direction === 'inbound' ? 1 : 0;
}

export function farEndChannel(call: Pick<CallRef, 'direction'>): CallChannel {
  return flowChannel(call) === 1 ? 0 : 1;
}

/** How long an operation takes in the sandbox, in simulated seconds. */
export function opSeconds(op: MediaOp): number {
  switch (op.kind) {
    case 'speak': {
      const words = op.text.split(/\s+/).filter(Boolean).length;
      return round3((words / SPEECH_WORDS_PER_SECOND + SPEECH_GAP_SECONDS) * Math.max(1, op.loop));
    }
    case 'silence':
      return op.seconds;
    case 'play':
      return round3(op.seconds * Math.max(1, op.loop));
    default:
      throw new Error(`the simulator does not run ${op.kind} operations yet`);
  }
}

/** Prompts played one after the other from `at`: what they add to the call's sound. */
export function promptSound(prompts: readonly PromptOp[], at: number, channel: CallChannel): CallSound {
  const sound: CallSound = { segments: [], plays: [] };
  let cursor = at;
  for (const prompt of prompts) {
    if (prompt.kind === 'speak') {
      // The flow's words are its party's, as on a live call (transcript.ts: SPEAKERS).
      const lines = Array.from({ length: Math.max(1, prompt.loop) }, () => ({ channel, speaker: speakerOn(channel), text: prompt.text }));
      sound.segments.push(...timeDialogue(lines, { startAt: cursor, wordsPerSecond: SPEECH_WORDS_PER_SECOND, gapSeconds: SPEECH_GAP_SECONDS })
        .filter((s) => s.words.length > 0));
    } else if (prompt.kind === 'play') {
      sound.plays.push({ channel, path: prompt.path, fileSeconds: prompt.seconds, start: cursor, end: round3(cursor + opSeconds(prompt)), offset: 0 });
    }
    cursor = round3(cursor + opSeconds(prompt));
  }
  return sound;
}

/** Words the far end says from `at` (the pace the sandbox's gather and record hear). */
export function farEndWords(text: string, at: number, channel: CallChannel): TranscriptSegment | null {
  const words = text.split(/\s+/).filter(Boolean).map((word, i) => ({
    text: word,
    start: round3(at + i / SPEECH_WORDS_PER_SECOND),
    end: round3(at + (i + 0.9) / SPEECH_WORDS_PER_SECOND),
  }));
  if (words.length === 0) return null;
  return { channel, speaker: speakerOn(channel), start: words[0]!.start, end: words.at(-1)!.end, text: words.map((w) => w.text).join(' '), words };
}

/** The far end's party: the caller of an inbound call, the callee of an outbound one. */
export function farEndSpeaker(call: Pick<CallRef, 'direction'>): Speaker {
  return speakerOn(farEndChannel(call));
}

export function addSound(into: CallSound | undefined, more: Partial<CallSound>): CallSound {
  return { segments: [...(into?.segments ?? []), ...(more.segments ?? [])], plays: [...(into?.plays ?? []), ...(more.plays ?? [])] };
}

/** The flow's prompts were cut at `at` (barge-in, a live update, a hang-up): nothing of `channel` sounds after it. */
export function cutSound(sound: CallSound | undefined, channel: CallChannel, at: number): CallSound | undefined {
  if (!sound) return sound;
  const segments = sound.segments.flatMap((s) => {
    if (s.channel !== channel || s.end <= at) return [s];
    const words = s.words.filter((w) => w.start < at).map((w) => ({ ...w, end: Math.min(w.end, at) }));
    if (words.length === 0) return [];
    return [{ ...s, end: words.at(-1)!.end, text: words.map((w) => w.text).join(' '), words }];
  });
  const plays = sound.plays.flatMap((p) => (p.channel !== channel || p.end <= at ? [p] : p.start >= at ? [] : [{ ...p, end: at }]));
  return { segments, plays };
}

/** The part of the call's sound in `spans` (talk seconds), moved to recording seconds, and the recording's length. */
export function soundOfSpans(
  sound: CallSound | undefined, spans: ReadonlyArray<{ start: number; end: number | null }>,
): { transcript: TranscriptSegment[]; plays: PlayedAudio[]; durationSeconds: number } {
  const transcript: TranscriptSegment[] = [];
  const plays: PlayedAudio[] = [];
  let offset = 0;
  for (const span of spans) {
    const end = span.end ?? span.start;
    const shift = (t: number) => round3(t - span.start + offset);
    for (const segment of sound?.segments ?? []) {
      const words = segment.words.filter((w) => w.end > span.start && w.start < end)
        .map((w) => ({ text: w.text, start: shift(Math.max(w.start, span.start)), end: shift(Math.min(w.end, end)) }))
        .filter((w) => w.end > w.start);
      if (words.length === 0) continue;
      transcript.push({ ...segment, start: words[0]!.start, end: words.at(-1)!.end, text: words.map((w) => w.text).join(' '), words });
    }
    for (const play of sound?.plays ?? []) {
      const from = Math.max(play.start, span.start);
      const to = Math.min(play.end, end);
      if (to <= from) continue;
      plays.push({ ...play, start: shift(from), end: shift(to), offset: round3(play.offset + from - play.start) });
    }
    offset = round3(offset + Math.max(0, end - span.start));
  }
  transcript.sort((a, b) => a.start - b.start || a.channel - b.channel);
  return { transcript, plays, durationSeconds: offset };
}

/**
 * Adds the played files to frames [fromFrame, fromFrame + count) of a recording (`out`, one
 * array per channel; a mono recording mixes every party into its one channel). `pcm` gives a
 * file's samples at the recording's rate.
 */
export function mixPlays(
  out: Int16Array[], plays: readonly PlayedAudio[], sampleRate: number, fromFrame: number, pcm: (path: string) => Int16Array,
): void {
  const count = out[0]?.length ?? 0;
  for (const play of plays) {
    const first = Math.max(fromFrame, Math.round(play.start * sampleRate));
    const last = Math.min(fromFrame + count, Math.round(play.end * sampleRate));
    if (last <= first) continue;
    const samples = pcm(play.path);
    if (samples.length === 0) continue;
    const track = out[out.length === 1 ? 0 : play.channel]!;
    const startInFile = Math.round(play.offset * sampleRate) - Math.round(play.start * sampleRate);
    for (let frame = first; frame < last; frame++) {
      const value = (track[frame - fromFrame] as number) + (samples[(frame + startInFile) % samples.length] as number);
      track[frame - fromFrame] = Math.max(-32768, Math.min(32767, value));
    }
  }
}
