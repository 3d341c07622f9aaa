// The voice side of a carrier: what Switchboard asks of a phone network (place a call,
// hang it up, blind-transfer it; its MediaPort for the audio of answered calls) and how
// the network reports back (CallSignals). The sandbox uses the simulator; live mode needs a real carrier
// (SIP trunk), and until one is configured a valid live call is refused with 422
// `carrier_not_configured` (a retry cannot fix it) before anything is written. Messaging carriers live in their own
// interface (MessagingCarrier), next to this one.
import type { Trx } from '../store/transaction.ts';
import type { Mode } from '../store/platform-tables.ts';
import type { Clock } from '../platform/clock.ts';
import type { MediaPort } from './media-port.ts';
import type { CallRef } from '../telephony/call-ref.ts';
import type { CallEnd, TransferOutcome } from '../telephony/call-end.ts';
import { Problem } from '../platform/problems.ts';

/**
 * What a carrier reports, implemented by the calls service. Every signal runs inside the
 * carrier's transaction with the call locked (`CarrierCallStore.lock`), so a signal and an
 * API request on the same call never interleave.
 */
export interface CallSignals {
  /** `postDialDelayMs`: a live carrier's time from sending the INVITE to this first 180/183. */
  ringing(trx: Trx, call: CallRef, details?: { postDialDelayMs?: number }): Promise<void>;
  answered(trx: Trx, call: CallRef): Promise<void>;
  ended(trx: Trx, call: CallRef, end: CallEnd): Promise<void>;
  transferSettled(trx: Trx, call: CallRef, index: number, outcome: TransferOutcome): Promise<void>;
  /** Whether transfer `index` of the call still waits for its outcome (a carrier settles only those). */
  transferPending(trx: Trx, call: CallRef, index: number): Promise<boolean>;
  /**
   * A caller on the network asks for `offer.to`. The calls module decides, once: the number
   * (live or sandbox, active, with voice), the carrier binding it is reachable over, and the
   * account's concurrent-call cap. Admitted, the call exists `ringing`, set to run what the
   * number's voice configuration says once it is answered, with the carrier's state and node
   * stored with it; rejected, nothing was written and `reason` says what to answer.
   */
  admit(trx: Trx, offer: InboundOffer, clock: Clock): Promise<InboundDecision>;
}

/** An inbound call as the network offers it. */
export interface InboundOffer {
  mode: Mode;
  /** The caller, E.164. */
  from: string;
  /** The number called, E.164. */
  to: string;
  /** The carrier binding the call came over (a SIP trunk's name): a number bound to another one is not reachable through it. */
  binding: string;
  /** The carrier's private state the call starts with (in place of `initialState`). */
  carrierState: string;
  /** The media node that holds the call (null: any). */
  node: string | null;
}

export type InboundDecision =
  | { admitted: true; call: CallRef }
  /** `unknown_number`: no active voice number reachable over this binding; `at_capacity`: the account's concurrent-call cap. */
  | { admitted: false; reason: 'unknown_number' | 'at_capacity' };
/**
 * Where a voice carrier keeps its private per-call state, given to it by the calls module
 * (which owns the calls table: a carrier never reads or writes it). Methods with a `trx` run
 * in the caller's transaction, which holds the call's lock, so the carrier's reads and writes
 * and the signals it sends commit together.
 */
export interface CarrierCallStore {
  /** The call, locked for the rest of `trx`, or undefined when there is none. */
  lock(trx: Trx, callId: string): Promise<CallRef | undefined>;
  /** The carrier's state of the call (what `initialState` gave, as last written). */
  readState(trx: Trx, callId: string): Promise<string>;
  writeState(trx: Trx, callId: string, state: string): Promise<void>;
  /** Pins the call to the media node holding its dialog and media (null: any node). */
  hold(trx: Trx, callId: string, node: string | null): Promise<void>;
  /** The calls not yet ended that `node` holds (a dead node's calls). */
  heldBy(node: string): Promise<string[]>;
  /**
   * The call as it stands, unlocked, for background work outside the call's transaction,
   * and whether it runs a flow (the simulator renders a flow call's sound, not its script).
   */
  peek(callId: string): Promise<{ call: CallRef; runsFlow: boolean } | undefined>;
}

export interface VoiceCarrier {
  readonly name: string;
  /** False while this carrier's media port cannot run flow verbs yet: a call with a flow is refused before anything is written. */
  readonly runsFlows?: boolean;
  /** The carrier's private per-call state, stored with the call (`carrier_state`). */
  initialState(call: Pick<CallRef, 'id' | 'to_number'>): string;
  /**
   * Checks, before anything is written, that a call from a number with this carrier binding
   * (numbers.voice_trunk) can be placed; throws a Problem when it cannot. Optional.
   */
  checkRoute?(voiceTrunk: string | null): void;
  /**
   * Several media nodes: the node whose memory holds `call`'s dialog and media, and whether
   * that is this process. A job that acts on the call is enqueued for that node
   * (EnqueueOptions.node); the carrier's own methods carry API actions there themselves.
   * Absent, or null: any node may act on the call (the sandbox, a single node).
   */
  ownerOf?(call: CallRef): { node: string; here: boolean } | null;
  /**
   * Starts placing `call` (status `queued`); progress comes back through CallSignals.
   * `binding`: the carrier binding of the from number (numbers.voice_trunk), already checked by `checkRoute`.
   */
  place(trx: Trx, call: CallRef, binding: string | null): Promise<void>;
  /** Switchboard ends the call (API hangup). Returns the talk time if it was answered. */
  hangUp(trx: Trx, call: CallRef): Promise<{ talkSeconds: number | null }>;
  /** Blind transfer of the called party to `to`; the outcome comes back via transferSettled. */
  transfer(trx: Trx, call: CallRef, index: number, to: string, ringTimeout: number): Promise<void>;
  /**
   * The audio of the carrier's answered calls: call flows run through it, recordings are
   * captured by it and streamed to their sinks as the call runs, and its `elapsed` is the
   * call's talk time so far.
   */
  readonly media: MediaPort;
}

/** Finds the carrier of a mode (new calls) or of an existing call (by the name stored with it). */
export class VoiceCarriers {
  private readonly byName = new Map<string, VoiceCarrier>();

  constructor(private readonly sandbox: VoiceCarrier, /** The live mode's carrier; null when the carriers file configures none. */ readonly live: VoiceCarrier | null) {
    this.byName.set(sandbox.name, sandbox);
    if (live) this.byName.set(live.name, live);
  }

  forMode(mode: Mode): VoiceCarrier {
    if (mode === 'sandbox') return this.sandbox;
    if (this.live) return this.live;
    throw new Problem('carrier_not_configured',
      'Live calls need a real carrier (a SIP trunk), and none is configured on this Switchboard server, so nothing was created. '
      + 'Retrying will not help: configure a carrier (SWITCHBOARD_CARRIERS_FILE), or use a sandbox key (sb_test_...) to place calls on the simulated carrier.');
  }

  /** Every configured carrier (a service that acts on each carrier's media, like closing the streams at shutdown). */
  all(): VoiceCarrier[] {
    return [...this.byName.values()];
  }

  named(name: string): VoiceCarrier {
    const carrier = this.byName.get(name);
    if (!carrier) throw new Error(`call uses carrier "${name}", which is not configured on this server`);
    return carrier;
  }
}
