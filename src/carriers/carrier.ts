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
import type { CallRow } from '../modules/calls/tables.ts';
import type { HangupCause, HangupSource } from '../modules/calls/states.ts';
import { Problem } from '../platform/problems.ts';

/** How a call ended on the network side. */
export interface CallEnd {
  status: 'completed' | 'busy' | 'no_answer' | 'failed';
  hangupCause: HangupCause;
  hangupSource: HangupSource;
  /** Talk time as the carrier measured it (media since answer), for answered calls. */
  talkSeconds?: number;
  /** The carrier's own code for the end (e.g. the SIP final response status, "486"); shown as failure.carrier_code. */
  carrierCode?: string;
}

/** CallEnd.carrierCode of a live call whose media node died: our own code, not a carrier's. */
export const NODE_LOST = 'node_lost';

export type TransferOutcome = 'completed' | 'busy' | 'no_answer' | 'failed';

/**
 * What a carrier reports, implemented by the calls service. Every signal runs inside the
 * carrier's transaction with the call row locked (`lock`), so a signal and an API request
 * on the same call never interleave.
 */
export interface CallSignals {
  lock(trx: Trx, callId: string): Promise<CallRow | undefined>;
  ringing(trx: Trx, call: CallRow): Promise<void>;
  answered(trx: Trx, call: CallRow): Promise<void>;
  ended(trx: Trx, call: CallRow, end: CallEnd): Promise<void>;
  transferSettled(trx: Trx, call: CallRow, index: number, outcome: TransferOutcome): Promise<void>;
  /**
   * A caller reached one of an account's numbers over the carrier: the call is created
   * `ringing`, set to run what the number's voice configuration says once it is answered
   * (its answer webhook or stored flow, its AI agent, or a spoken "not set up").
   */
  inboundCall(trx: Trx, input: InboundCall, clock: Clock): Promise<CallRow>;
}

export interface InboundCall {
  accountId: string;
  mode: Mode;
  /** The caller, E.164. */
  from: string;
  /** The account's number that was called. */
  to: string;
  webhookUrl: string | null;
}


export interface VoiceCarrier {
  readonly name: string;
  /** False while this carrier's media port cannot run flow verbs yet: a call with a flow is refused before anything is written. */
  readonly runsFlows?: boolean;
  /** The carrier's private per-call state, stored with the call (`carrier_state`). */
  initialState(call: Pick<CallRow, 'id' | 'to_number'>): string;
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
  ownerOf?(call: CallRow): { node: string; here: boolean } | null;
  /** Starts placing `call` (status `queued`); progress comes back through CallSignals. */
  place(trx: Trx, call: CallRow): Promise<void>;
  /** Switchboard ends the call (API hangup). Returns the talk time if it was answered. */
  hangUp(trx: Trx, call: CallRow): Promise<{ talkSeconds: number | null }>;
  /** Blind transfer of the called party to `to`; the outcome comes back via transferSettled. */
  transfer(trx: Trx, call: CallRow, index: number, to: string, ringTimeout: number): Promise<void>;
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

  constructor(private readonly sandbox: VoiceCarrier, private readonly live: VoiceCarrier | null) {
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

  /** Every configured carrier (the recordings module connects its sinks to each media port). */
  all(): VoiceCarrier[] {
    return [...this.byName.values()];
  }

  named(name: string): VoiceCarrier {
    const carrier = this.byName.get(name);
    if (!carrier) throw new Error(`call uses carrier "${name}", which is not configured on this server`);
    return carrier;
  }
}
