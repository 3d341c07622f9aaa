// The simulator's `record` operation (a flow's record verb) as pure state changes: after an
// optional half-second beep it captures what the simulated far end says (a developer's
// POST /v1/sandbox/calls/{id}/say, a caller script's say steps) as timed words, until a
// finish key, silence_timeout seconds after the last utterance, or max_length. The words
// become the recording's audio and transcript (rendered like every sandbox recording), so a
// sandbox `record` really holds the caller's speech. media.ts stores the state and turns
// decisions into durable jobs.
import type { MediaResult, RecordOp } from '../../telephony/media-ops.ts';
import type { Speaker, TranscriptSegment } from '../../telephony/transcript.ts';

export const BEEP_SECONDS = 0.5;
/** Words per second of the simulated far end's speech (the simulator's pace everywhere). */
const WORDS_PER_SECOND = 3;

const round3 = (s: number) => Math.round(s * 1000) / 1000;

export interface RecordState {
  recordingId: string;
  /** Talk seconds when capture starts (after the beep). */
  startAt: number;
  maxSeconds: number;
  silenceTimeoutSeconds: number;
  finishOnKey: string;
  /** Talk seconds when the last utterance heard ends (startAt before any). */
  quietFrom: number;
  /** Bumped whenever the silence timer moves: an older timer job is stale. */
  tick: number;
}

export function startRecord(op: RecordOp, now: number): RecordState {
  const startAt = round3(now + (op.beep ? BEEP_SECONDS : 0));
  return {
    recordingId: op.recordingId, startAt, maxSeconds: op.maxSeconds, silenceTimeoutSeconds: op.silenceTimeoutSeconds,
    finishOnKey: op.finishOnKey, quietFrom: startAt, tick: 0,
  };
}

export type RecordResult = Extract<MediaResult, { kind: 'record' }>;

export function recordResult(state: RecordState, reason: RecordResult['reason'], endAt: number): RecordResult {
  return { kind: 'record', reason, durationSeconds: round3(Math.max(0, Math.min(endAt, state.startAt + state.maxSeconds) - state.startAt)) };
}

/** When the record ends by itself from here: silence after the last utterance, or the maximum length. */
export function recordTimer(state: RecordState): { atSeconds: number; reason: 'silence' | 'max_length' } {
  const maxEnd = round3(state.startAt + state.maxSeconds);
  if (state.silenceTimeoutSeconds <= 0) return { atSeconds: maxEnd, reason: 'max_length' };
  const silentAt = round3(state.quietFrom + state.silenceTimeoutSeconds);
  return silentAt < maxEnd ? { atSeconds: silentAt, reason: 'silence' } : { atSeconds: maxEnd, reason: 'max_length' };
}

/** A key pressed at `now`: a finish key ends the record, any other is not captured. */
export function recordKey(state: RecordState, digits: string): boolean {
  return state.finishOnKey !== '' && [...digits].some((key) => state.finishOnKey.includes(key));
}

/**
 * Words said at `now`: returned as a transcript segment in recording seconds (clipped to the
 * maximum length); the silence timer restarts after the last word. Mutates `state`.
 */
export function recordWords(state: RecordState, text: string, now: number, speaker: Speaker): TranscriptSegment | null {
  const words = text.split(/\s+/).filter(Boolean);
  const from = Math.max(now, state.startAt);
  const timed = words.map((word, i) => ({
    text: word,
    start: round3(from - state.startAt + i / WORDS_PER_SECOND),
    end: round3(from - state.startAt + (i + 0.9) / WORDS_PER_SECOND),
  })).filter((w) => w.end <= state.maxSeconds);
  if (timed.length === 0) return null;
  state.quietFrom = round3(state.startAt + timed.at(-1)!.end);
  state.tick += 1;
  return { channel: 0, speaker, start: timed[0]!.start, end: timed.at(-1)!.end, text: timed.map((w) => w.text).join(' '), words: timed };
}
