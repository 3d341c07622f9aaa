// The simulator's `bridge` operation (a flow's dial): the dialled number behaves as the
// magic-numbers table says for any call, so a sandbox IVR can be tried against each outcome.
// Busy and failing numbers answer at once; a number that never answers rings until the
// dial's timeout; any other rings RING_SECONDS, answers, and talks as that table says
// (5 s, its dialogue, or until the dial's time_limit). What it says while bridged is heard on
// the flow's side of the call, as a live bridge relays the second leg's audio to the far end,
// so the call's recording carries it, under the flow's party as speaker (the dial result
// names the number).
import type { BridgeOp, MediaResult } from '../../telephony/media-ops.ts';
import { speakerOn, type TranscriptSegment } from '../../telephony/transcript.ts';
import { RING_SECONDS, SPEECH_START_SECONDS, destination } from './magic-numbers.ts';
import { simulatedDialogue } from './conversation-script.ts';
import type { CallChannel } from '../../telephony/transcript.ts';
import { timeDialogue } from './speech.ts';
import { talkTime } from './talk-time.ts';

export interface BridgePlan {
  /** Simulated seconds from the dial to the end of the bridge. */
  endsAfter: number;
  /** Seconds from the dial to the dialled party answering; null when it never does. */
  answerAfter: number | null;
  result: Extract<MediaResult, { kind: 'bridge' }>;
}

/** What dialling `op.to` comes to; `legKey` seeds the dialled party's dialogue. */
export function bridgePlan(op: BridgeOp, callId: string, legIndex: number): BridgePlan {
  const target = destination(op.to);
  const ends = (outcome: 'busy' | 'failed' | 'no_answer', after: number): BridgePlan => ({
    endsAfter: after, answerAfter: null, result: { kind: 'bridge', outcome, talkSeconds: 0 },
  });
  if (target.answer === 'busy') return ends('busy', 0);
  if (target.answer === 'fails') return ends('failed', 0);
  if (target.answer === 'no_answer' || RING_SECONDS >= op.ringTimeoutSeconds) return ends('no_answer', op.ringTimeoutSeconds);
  const talk = target.talk === 'forever' ? op.timeLimitSeconds : Math.min(talkTime(target, callId, legIndex), op.timeLimitSeconds);
  return { endsAfter: RING_SECONDS + talk, answerAfter: RING_SECONDS, result: { kind: 'bridge', outcome: 'completed', talkSeconds: talk } };
}

/**
 * The dialled party's words while bridged, in talk seconds: its lines of the dialogue a
 * sandbox call to that number has (the same seed as its talk time), from `answerAt` on, cut
 * where the bridge ends. They go on `channel` (the flow's side), that side's party as speaker,
 * as a live recording hears them.
 * The dialogue's other lines are the far end's, which in a flow says only what it is made to.
 */
export function bridgedWords(op: BridgeOp, callId: string, legIndex: number, answerAt: number, talkSeconds: number, channel: CallChannel): TranscriptSegment[] {
  const until = answerAt + talkSeconds;
  return timeDialogue(simulatedDialogue(destination(op.to).dialogue, `${callId}:${legIndex}`), { startAt: answerAt + SPEECH_START_SECONDS })
    .filter((segment) => segment.speaker === 'callee')
    .flatMap((segment) => {
      const words = segment.words.filter((w) => w.start < until).map((w) => ({ ...w, end: Math.min(w.end, until) }));
      if (words.length === 0) return [];
      return [{ channel, speaker: speakerOn(channel), start: words[0]!.start, end: words.at(-1)!.end, text: words.map((w) => w.text).join(' '), words }];
    });
}
