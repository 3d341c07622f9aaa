// The simulator's private per-call state, kept with the call by the calls module: the parties heard on
// the call (legs) and the recordings being captured. Read and written only inside the
// transaction that holds the call's lock, straight from the row (never from a copy a caller
// may hold), so the voice steps and the media port never overwrite each other's changes.
import type { Trx } from '../../store/transaction.ts';
import type { CarrierCallStore } from '../carrier.ts';
import type { RecordingFormat } from '../../telephony/media-ops.ts';
import type { SimulatedLeg } from './call-audio.ts';
import type { CollectState } from './collect.ts';
import type { CallerStep } from '../sandbox-network.ts';
import type { RecordState } from './record.ts';
import type { TranscriptSegment } from '../../telephony/transcript.ts';
import type { CallSound } from './flow-sound.ts';
import type { ConferenceStay } from './conference-media.ts';

/** The scripted caller's place in its script (caller-script.ts). */
export interface CallerScriptState {
  steps: CallerStep[];
  /** The next step to take. */
  pos: number;
  /** A press or say step waits for the next gather to listen. */
  waiting: boolean;
}

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
  op?: { id: string; kind: string; collect?: CollectState; bridge?: { answerAt: number | null }; record?: RecordState; conference?: ConferenceStay; connection?: ConferenceStay };
  /** Every conference the call has been in: what it heard there goes into its recordings. */
  stays?: ConferenceStay[];
  /** A flow call: what its flow said and played and what the far end said, in talk seconds (flow-sound.ts). */
  sound?: CallSound;
  /** The scripted caller of an inbound sandbox call (caller-script.ts). */
  script?: CallerScriptState;
}

/** The simulator's state of each call, kept by the calls module (CarrierCallStore). */
export class SimStates {
  constructor(readonly store: CarrierCallStore) {}

  async read(trx: Trx, callId: string): Promise<SimState> {
    return JSON.parse(await this.store.readState(trx, callId)) as SimState;
  }

  async write(trx: Trx, callId: string, state: SimState): Promise<void> {
    await this.store.writeState(trx, callId, JSON.stringify(state));
  }
}
