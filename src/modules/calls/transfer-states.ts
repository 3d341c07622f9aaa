// The blind-transfer state machine as data (a call's `transfers[]`): a transfer rings
// (`pending`) and settles once. Its events are the call's own, on the call's sequence, with
// the whole call (and its transfers) as `data.object`:
//
//   pending --(target answers)--------------> completed   call.transferred
//   pending --(target busy, no answer, ...)--> busy | no_answer | failed   call.transfer_failed
//   pending --(the call ends first)---------> canceled    the call's end (call.completed)
//
// Transfers live in the call's row (a JSON list), stored with the call's own UPDATE under the
// call's lock, so TRANSFER_MACHINE only checks moves: calls/service.ts settles a transfer
// only where it allows.
import type { EventType } from '../../events/catalogue.ts';
import { defineStateMachine } from '../../platform/state-machine.ts';

export const TRANSFER_STATUSES = ['pending', 'completed', 'busy', 'no_answer', 'failed', 'canceled'] as const;
export type TransferStatus = (typeof TRANSFER_STATUSES)[number];

export const TRANSITIONS: Record<TransferStatus, readonly TransferStatus[]> = {
  pending: ['completed', 'busy', 'no_answer', 'failed', 'canceled'],
  completed: [],
  busy: [],
  no_answer: [],
  failed: [],
  canceled: [],
};

/**
 * The event a transfer's call emits when the transfer enters each state. A transfer is
 * canceled only by the end of its call, whose call.completed (always emitted, last) carries it.
 */
export const STATE_EVENTS: Record<TransferStatus, EventType> = {
  pending: 'call.transfer_started',
  completed: 'call.transferred',
  busy: 'call.transfer_failed',
  no_answer: 'call.transfer_failed',
  failed: 'call.transfer_failed',
  canceled: 'call.completed',
};

export const TRANSFER_MACHINE = defineStateMachine<TransferStatus, { id: string; status: TransferStatus }>({
  resource: 'Transfer',
  transitions: TRANSITIONS,
});
