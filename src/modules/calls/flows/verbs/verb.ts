// What a flow verb is: one definition (a file in this folder, one line in registry.ts) that
// holds everything the rest of the flow machinery asks of it. The interpreter, the validator,
// the URL policy check and the audio fetcher read these hooks and know no verb by name.
import type { Static, TObject } from 'typebox';
import type { Clock } from '../../../../platform/clock.ts';
import type { Platform } from '../../../../platform/context.ts';
import type { FieldErrorCode } from '../../../../platform/field-errors.ts';
import type { Trx } from '../../../../store/transaction.ts';
import type { EventType } from '../../../../events/catalogue.ts';
import type { MediaOp, MediaResult, RecordingFormat } from '../../../../telephony/media-ops.ts';
import type { TransferOutcome } from '../../../../telephony/call-end.ts';
import type { CallRow } from '../../tables.ts';
import type { CachedAudio } from '../cached-audio.ts';
import type { FlowFailure } from '../flow-failure.ts';
import type { FlowLogEntry, FlowReplacement, FlowState, PendingFetch } from '../state.ts';

/** Where a verb runs: the locked call, its flow and log as read in this transaction, and the instant. */
export interface VerbStep {
  trx: Trx;
  call: CallRow;
  state: FlowState;
  log: FlowLogEntry[];
  clock: Clock;
  /** When the verb started (its log entry's started_at). */
  now: string;
}

/** How a record verb makes its recording resource (implemented by the recordings module). */
export interface FlowRecordings {
  start(trx: Trx, call: CallRow, clock: Clock): Promise<{ id: string; format: RecordingFormat }>;
  /** The verb ended: the recording stops and is processed (call.recording.stopped, then ready). */
  stop(trx: Trx, call: CallRow, recordingId: string, clock: Clock): Promise<void>;
}

/** What the conference verb asks of the conferences module (which implements it). */
export interface FlowConferences {
  /**
   * Seats the call in the open conference of its account and mode named `seat.name` (made now
   * if there is none): conference.participant.joined, and conference.started when it starts.
   * Refused, and nothing written, when it is full, or when the call's carrier cannot mix
   * conferences (`unsupported`, a sentence saying why).
   */
  join(trx: Trx, call: CallRow, seat: ConferenceSeatRequest, clock: Clock): Promise<{ conferenceId: string } | { refused: 'full'; conferenceId: string } | { refused: 'unsupported'; detail: string }>;
  /** The conference the call is seated in now, if any. */
  seatedIn(trx: Trx, callId: string): Promise<string | null>;
  /** The media node that mixes the conference (its first participant's), null when any node may. */
  homeOf(trx: Trx, conferenceId: string): Promise<string | null>;
  /** The call left its conference (its verb was interrupted, or it hung up); nothing if it was not seated. */
  leave(trx: Trx, call: CallRow, reason: 'removed' | 'flow_updated' | 'hangup', clock: Clock): Promise<void>;
}

/** How a call takes its seat (the conference verb's fields). */
export interface ConferenceSeatRequest {
  name: string;
  muted: boolean;
  startOnEnter: boolean;
  endOnExit: boolean;
  beep: boolean;
  maxParticipants: number;
  record: boolean;
  coachCallId: string | null;
}

/** What verbs ask of the calls service (service.ts implements it; named here so the verbs do not import it). */
export interface FlowCalls {
  /** The flow hangs up (the hangup verb, or the flow ran out). */
  endFromFlow(trx: Trx, call: CallRow, clock: Clock): Promise<void>;
  /** Blind transfer of the called party; the outcome comes to the onTransferSettled listeners. */
  startTransfer(trx: Trx, call: CallRow, to: string, ringTimeout: number, clock: Clock): Promise<{ call: CallRow; index: number }>;
  onTransferSettled(listener: (trx: Trx, call: CallRow, index: number, outcome: TransferOutcome) => Promise<void>): void;
}

/**
 * What a verb may ask of the flow (the interpreter implements it) and of the modules it hands
 * calls to. A verb whose port is its own (agent, enqueue, stream) adds it here from its file
 * (`declare module './verb.ts'`), so this file never imports a verb.
 */
export interface FlowRuntime {
  readonly platform: Platform;
  readonly calls: FlowCalls;
  recordings(): FlowRecordings;
  conferences(): FlowConferences;
  /** Runs verbs from `state.pc` until one waits, or the flow ends the call. */
  advance(trx: Trx, call: CallRow, state: FlowState, log: FlowLogEntry[], clock: Clock): Promise<void>;
  /** The flow cannot go on: call.flow.failed, the apology (the generic one, or `apology`), the hang-up. */
  apologise(trx: Trx, call: CallRow, state: FlowState, log: FlowLogEntry[], clock: Clock, failure: FlowFailure & { url: null }, apology?: string): Promise<void>;
  /** The flow becomes the replacement of a live update. */
  switchTo(trx: Trx, call: CallRow, state: FlowState, log: FlowLogEntry[], clock: Clock, replacement: FlowReplacement): Promise<void>;
  /** The flow waits on a webhook. */
  startFetch(trx: Trx, call: CallRow, state: FlowState, log: FlowLogEntry[], clock: Clock, fetch: PendingFetch): Promise<void>;
  /** Starts the media operation of the verb at `state.pc` (what a verb with `op` does by default). */
  runMedia(step: VerbStep): Promise<void>;
  emit(trx: Trx, call: CallRow, type: EventType, object: Record<string, unknown>, clock: Clock): Promise<void>;
}

/** A problem with a verb's field, by its path inside the verb (`input`, `prompts[0].play.url`). */
export interface VerbFieldError {
  path: string;
  message: string;
  code: FieldErrorCode;
}

export interface VerbDefinition<Name extends string = string, Schema extends TObject = TObject> {
  readonly name: Name;
  /** The verb's body, published in the `Flow` component of the OpenAPI document. */
  readonly schema: Schema;
  /** The URLs it makes Switchboard fetch, checked against the webhook URL policy when a flow is saved. */
  urls?(body: Static<Schema>): Array<{ path: string; url: string }>;
  /** The audio it plays: fetched and cached (flow-audio.ts) before its operation runs. */
  audio?(body: Static<Schema>): string[];
  /** Audio that could not be fetched: `skip` the verb (logged failed), or `run` it without that audio. */
  readonly withoutAudio?: 'skip' | 'run';
  /** Why this call's media cannot run it, refused when the flow is accepted (a speech gather without speech-to-text). */
  unheard?(body: Static<Schema>, media: { hearsSpeech?: boolean }): VerbFieldError[];

  // A verb runs either as one media operation (`op`, then `finished` when the port reports
  // its end) or by its own steps (`run`: a redirect fetches, a transfer waits on the call's
  // transfer, hangup ends the call).

  /** The media operation it runs; `audio` holds its fetched audio. */
  op?(body: Static<Schema>, call: CallRow, audio: ReadonlyMap<string, CachedAudio>): MediaOp;
  /** Just before the operation runs (in its transaction): the operation as it runs, and what the flow state keeps for it. */
  prepare?(flow: FlowRuntime, step: VerbStep, op: MediaOp): Promise<{ op: MediaOp; state?: Partial<FlowState> }>;
  /** The finished operation as its flow log entry shows it (default: the result without its kind). */
  logResult?(body: Static<Schema>, result: MediaResult, state: FlowState): Record<string, unknown>;
  /**
   * The operation finished (its log entry is closed): the verb's events, and the action_url
   * its result goes to. The flow asks that URL unless a live update came in or the operation
   * was cut short by a hang-up or an interruption; the flow request carries the result under
   * the verb's name.
   */
  finished?(flow: FlowRuntime, step: VerbStep, body: Static<Schema>, result: MediaResult): Promise<{ actionUrl: string | undefined; result: Record<string, unknown> } | void>;
  /** Flow requests carry this verb's result under its name (null when another reason asks). */
  readonly postsResult?: boolean;
  /** The object of the verb's event, a component of the OpenAPI document (its `$id`). */
  readonly resultSchema?: TObject;

  /** A verb that is not a media operation: its steps, from its open log entry. `opId` is the id it may wait on. */
  run?(flow: FlowRuntime, step: VerbStep, body: Static<Schema>, opId: string): Promise<void>;
  /** A verb that waits on a webhook of its own (`reason` its name): its log entry once the webhook answered. */
  answered?(pending: PendingFetch, answer: { statusCode: number | null; ok: boolean }): Record<string, unknown>;
  /** Once, when the interpreter starts: listeners the verb needs (a transfer hears its call's transfers settle). */
  install?(flow: FlowRuntime): void;
}

/** Declares a verb; the identity, for the types of its hooks. */
export function defineVerb<Name extends string, Schema extends TObject>(def: VerbDefinition<Name, Schema>): VerbDefinition<Name, Schema> {
  return def;
}

/** An operation's result as a flow log entry shows it by default: all but its kind. */
export function plainResult(result: MediaResult): Record<string, unknown> {
  const { kind: _kind, ...rest } = result;
  return rest;
}
