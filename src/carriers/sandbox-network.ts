// The sandbox's simulated telephone network, as the modules see it: what a sandbox key may
// make the network do (ring an inbound call with a scripted caller, make the far end press
// or say, review a port-in order) and the timings those simulations follow. The simulator
// implements it (simulator/network.ts); modules never reach the simulator's classes.
import type { Trx } from '../store/transaction.ts';
import type { CallRef } from '../telephony/call-ref.ts';
import type { HeardInput } from '../telephony/media-ops.ts';

/** One step of a sandbox caller's script (POST /v1/sandbox/inbound_calls `caller_script`). */
export type CallerStep = { press: string } | { say: string } | { wait: number } | { hangup: true };

/** A port-in order as the simulated losing carrier reviews it. */
export interface PortSubmission {
  id: string;
  accountNumber: string;
  pin: string;
  submittedAt: Date;
}

export type PortReview =
  | { outcome: 'foc_scheduled'; focDate: Date; businessDays: number }
  | { outcome: 'exception'; code: string; detail: string }
  | { outcome: 'rejected'; reason: string };

export interface SandboxNetwork {
  /** Simulated seconds a sandbox call rings before it is answered. */
  readonly ringSeconds: number;
  /** Seconds (before SWITCHBOARD_SIM_TIME_SCALE) the losing carrier takes to review a port-in order. */
  readonly portReviewSeconds: number;
  /** Rings a new inbound sandbox call (inside its creating transaction); `script` is what the caller does once answered. */
  ringInbound(trx: Trx, call: CallRef, script: CallerStep[]): Promise<void>;
  /** Takes the caller's remaining `say` lines (an agent hears them as the conversation's caller); the script ends. */
  takeCallerLines(trx: Trx, call: CallRef): Promise<string[]>;
  /** The far end presses keys or speaks on a call in progress (POST /v1/sandbox/calls/{id}/press and /say). */
  farEnd(trx: Trx, call: CallRef, input: Extract<HeardInput, { kind: 'dtmf' | 'speech' }>): Promise<void>;
  /** The simulated losing carrier's answer to a port-in order; deterministic per order. */
  reviewPort(port: PortSubmission, holidays: readonly string[]): PortReview;
}
