// The simulator's `collect` operation (a flow's gather) as pure state changes: the far end's
// keypresses and words (typed by a developer or a caller script, heard exactly, no
// recognition) against the prompts, barge-in, finish key, digit count and timers of the
// operation. media.ts stores the state and turns the decisions into durable jobs.
import type { CollectOp, MediaResult } from '../../telephony/media-ops.ts';

export interface CollectState {
  op: CollectOp;
  /** Talk seconds when the prompts end (earlier once barge-in cut them). */
  promptsEndAt: number;
  digits: string;
  /** Words heard, once an utterance started; the op ends speechTimeout after it. */
  speech: string | null;
  /** Bumped whenever the timer moves: a timer job with an older tick is stale. */
  tick: number;
}

/** What media.ts must do after an input: finish now, move the timer, or nothing. */
export type CollectDecision =
  | { kind: 'finish'; result: Extract<MediaResult, { kind: 'collect' }> }
  | { kind: 'timer'; atSeconds: number; result: Extract<MediaResult, { kind: 'collect' }> | null }
  | { kind: 'ignored' };

/** Words per second of the simulated caller's speech (the simulator's pace everywhere). */
const WORDS_PER_SECOND = 3;

export function collectResult(state: CollectState, reason: Extract<MediaResult, { kind: 'collect' }>['reason']): Extract<MediaResult, { kind: 'collect' }> {
  return { kind: 'collect', digits: state.digits, speech: state.speech, confidence: state.speech === null ? null : 1, reason };
}

/** Whether input at `now` is heard: after the prompts, or during them with barge-in (which cuts them). */
function listening(state: CollectState, now: number): boolean {
  if (now >= state.promptsEndAt) return true;
  if (!state.op.bargeIn) return false;
  state.promptsEndAt = now;
  return true;
}

/** Keys pressed at talk second `now`. Mutates `state`. */
export function pressDigits(state: CollectState, digits: string, now: number): CollectDecision {
  if (!state.op.dtmf || state.speech !== null || !listening(state, now)) return { kind: 'ignored' };
  for (const key of digits) {
    if (key === 'w') continue;
    if (state.op.finishOnKey !== '' && key === state.op.finishOnKey) return { kind: 'finish', result: collectResult(state, 'finish_key') };
    state.digits += key;
    if (state.op.numDigits !== undefined && state.digits.length >= state.op.numDigits) return { kind: 'finish', result: collectResult(state, 'num_digits') };
  }
  state.tick += 1;
  return { kind: 'timer', atSeconds: now + state.op.timeoutSeconds, result: null };
}

/** Words said at talk second `now`: the utterance ends speechTimeout after the last word. */
export function sayWords(state: CollectState, text: string, now: number): CollectDecision {
  if (!state.op.speech || state.speech !== null || !listening(state, now)) return { kind: 'ignored' };
  const words = text.split(/\s+/).filter(Boolean);
  if (words.length === 0) return { kind: 'ignored' };
  state.speech = words.join(' ');
  state.tick += 1;
  const spoken = words.length / WORDS_PER_SECOND;
  return { kind: 'timer', atSeconds: now + spoken + state.op.speechTimeoutSeconds, result: collectResult(state, 'speech') };
}

/** The collect's timer fired: what it ends with. */
export function timerResult(state: CollectState): Extract<MediaResult, { kind: 'collect' }> {
  return collectResult(state, state.speech !== null ? 'speech' : 'timeout');
}
