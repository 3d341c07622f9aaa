// The simulator's private per-call state, kept in calls.carrier_state: the parties heard on
// the call (legs) and the recordings being captured. Read and written only inside the
// transaction that holds the call's lock, straight from the row (never from a copy a caller
// may hold), so the voice steps and the media port never overwrite each other's changes.
import type { Trx } from '../../store/transaction.ts';
import type { RecordingFormat } from '../media-port.ts';
import type { SimulatedLeg } from './call-audio.ts';
import type { CollectState } from './collect.ts';
import type { CallerScriptState } from './caller-script.ts';
import type { RecordState } from './record.ts';
import type { TranscriptSegment } from '../../modules/recordings/transcript.ts';
import type { CallSound } from './flow-sound.ts';

export interface SimCapture {
  format: RecordingFormat;
  /** Captured stretches, in talk seconds; the last is open (end null) while capturing. */
  spans: Array<{ start: number; end: number | null }>;
  /** Bumped at every stop: a render job of an older stop finds itself stale and quits. */
  generation: number;
  /**
   * A flow's `record`: what the far end said, in recording seconds. The audio is made from
   * these words instead of the call's scripted legs (record.ts).
   */
  words?: TranscriptSegment[];
  /** False: the recording gets no transcript (the record verb's `transcribe`). */
  transcribe?: boolean;
}

export interface SimState {
  /** Bumped whenever a scheduled hang-up becomes obsolete (a transfer connected): stale jobs skip. */
  leg: number;
  legs: SimulatedLeg[];
  captures?: Record<string, SimCapture>;
  /** The media operation running for the call's flow, if any. */
  op?: { id: string; kind: string; collect?: CollectState; bridge?: { answerAt: number | null }; record?: RecordState };
  /** A flow call: what its flow said and played and what the far end said, in talk seconds (flow-sound.ts). */
  sound?: CallSound;
  /** The scripted caller of an inbound sandbox call (caller-script.ts). */
  script?: CallerScriptState;
}

export async function readSimState(trx: Trx, callId: string): Promise<SimState> {
  const row = await trx.selectFrom('calls').select('carrier_state').where('id', '=', callId).executeTakeFirstOrThrow();
  return JSON.parse(row.carrier_state) as SimState;
}

export async function writeSimState(trx: Trx, callId: string, state: SimState): Promise<void> {
  await trx.updateTable('calls').set({ carrier_state: JSON.stringify(state) }).where('id', '=', callId).execute();
}
