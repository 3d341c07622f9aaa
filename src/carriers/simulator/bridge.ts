// The simulator's `bridge` operation (a flow's dial): the dialled number behaves as the
// magic-numbers table says for any call, so a sandbox IVR can be tried against each outcome.
// Busy and failing numbers answer at once; a number that never answers rings until the
// dial's timeout; any other rings RING_SECONDS, answers, and talks as that table says
// (5 s, its dialogue, or until the dial's time_limit).
import type { BridgeOp, MediaResult } from '../media-port.ts';
import { RING_SECONDS, destination } from './magic-numbers.ts';
import { talkTime } from './voice.ts';

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
