// The live carrier's word on its calls: every change it reports goes through the calls
// service's CallSignals in a transaction that holds the call's lock, and the SIP facts a
// user may need (the trunk, the final response) are kept in the call's carrier state.
import type { Kysely } from 'kysely';
import type { Tables } from '../../store/tables.ts';
import { inTransaction, type Trx } from '../../store/transaction.ts';
import type { CallRef } from '../../telephony/call-ref.ts';
import type { CallEnd, TransferOutcome } from '../../telephony/call-end.ts';
import type { CallSignals, CarrierCallStore } from '../carrier.ts';

/** What the carrier keeps in calls.carrier_state: the SIP facts a user may need to see. */
export interface LiveCallState {
  trunk: string | null;
  sip_status: number | null;
  sip_reason: string | null;
}

export class CallRecords {
  /** `signals`: the calls service, once connected (throws before). */
  constructor(private readonly db: Kysely<Tables>, readonly store: CarrierCallStore, private readonly connected: () => CallSignals) {}

  get signals(): CallSignals {
    return this.connected();
  }

  /** Runs `fn` on the call, locked, in a transaction of its own; nothing when there is no such call. */
  async withCall(callId: string, fn: (trx: Trx, row: CallRef) => Promise<void>): Promise<void> {
    this.connected();
    await inTransaction(this.db, async (trx) => {
      const row = await this.store.lock(trx, callId);
      if (row) await fn(trx, row);
    });
  }

  /** Ends the call with `end`, unless it has ended already; a failure carries the SIP status as its carrier code. */
  async finish(callId: string, end: CallEnd, sipStatus: number | null, sipReason: string | null): Promise<void> {
    await this.withCall(callId, async (trx, row) => {
      if (sipStatus !== null) row = { ...row, carrier_state: await this.saveSip(callId, sipStatus, sipReason, trx) };
      if (row.status === 'completed' || row.status === 'busy' || row.status === 'no_answer' || row.status === 'failed' || row.status === 'canceled') return;
      if (end.status === 'completed' && row.status !== 'in_progress') return;
      // A call that failed says so with the carrier's own word too: failure.carrier_code is the SIP status.
      const carrierCode = end.carrierCode ?? (end.status !== 'completed' && sipStatus !== null ? String(sipStatus) : undefined);
      await this.signals.ended(trx, row, carrierCode === undefined ? end : { ...end, carrierCode });
    });
  }

  /** Stores the final SIP response on the call; returns the new carrier state. */
  async saveSip(callId: string, status: number, reason: string | null, trx?: Trx): Promise<string> {
    const write = async (t: Trx) => {
      const state = JSON.stringify({ ...(JSON.parse(await this.store.readState(t, callId)) as LiveCallState), sip_status: status, sip_reason: reason });
      await this.store.writeState(t, callId, state);
      return state;
    };
    return trx ? write(trx) : inTransaction(this.db, write);
  }

  /** A 200 without a 180 first: the call still passes through ringing (the state machine's path). */
  async ringThen(trx: Trx, row: CallRef): Promise<CallRef> {
    await this.signals.ringing(trx, row);
    return (await this.store.lock(trx, row.id))!;
  }

  async settleTransfer(callId: string, index: number, outcome: TransferOutcome): Promise<void> {
    await this.withCall(callId, (trx, row) => this.signals.transferSettled(trx, row, index, outcome));
  }
}
