// The calls module's side of CarrierCallStore: the only code that reads or writes a call's
// carrier_state and node for a carrier. It needs nothing but the database, so the carriers
// can be given it when they are built, before the calls service exists.
import { NoResultError } from 'kysely';
import type { Database } from '../../store/db.ts';
import type { Trx } from '../../store/transaction.ts';
import type { CarrierCallStore } from '../../carriers/index.ts';
import type { CallRef } from '../../telephony/call-ref.ts';
import { ACTIVE_STATUSES } from './states.ts';
import { prepareFor, prepareStatement } from '../../store/prepared.ts';

// A carrier reads and writes a call's state at every step of every call: compiled once.
const callById = prepareFor((db, id: string) => db.selectFrom('calls').selectAll().where('id', '=', id), 1);
const callByIdForUpdate = prepareFor((db, id: string) => db.selectFrom('calls').selectAll().where('id', '=', id).forUpdate(), 1);
const carrierStateOf = prepareFor((db, id: string) => db.selectFrom('calls').select('carrier_state').where('id', '=', id), 1);
const setCarrierState = prepareStatement((db, state: string, id: string) => db.updateTable('calls').set({ carrier_state: state }).where('id', '=', id), 2);

export class CallCarrierStore implements CarrierCallStore {
  constructor(private readonly database: Database) {}

  async lock(trx: Trx, callId: string): Promise<CallRef | undefined> {
    return (await (this.database.engine === 'postgres' ? callByIdForUpdate : callById)(trx, callId))[0];
  }

  async readState(trx: Trx, callId: string): Promise<string> {
    const [row] = await carrierStateOf(trx, callId);
    if (!row) throw new NoResultError(trx.selectFrom('calls').select('carrier_state').where('id', '=', callId).toOperationNode());
    return row.carrier_state;
  }

  async writeState(trx: Trx, callId: string, state: string): Promise<void> {
    await setCarrierState(trx, state, callId);
  }

  async hold(trx: Trx, callId: string, node: string | null): Promise<void> {
    await trx.updateTable('calls').set({ node }).where('id', '=', callId).execute();
  }

  async heldBy(node: string): Promise<string[]> {
    const rows = await this.database.db.selectFrom('calls').select('id')
      .where('node', '=', node).where('status', 'in', [...ACTIVE_STATUSES]).execute();
    return rows.map((r) => r.id);
  }

  async peek(callId: string): Promise<{ call: CallRef; runsFlow: boolean } | undefined> {
    const call = await this.database.db.selectFrom('calls').selectAll().where('id', '=', callId).executeTakeFirst();
    return call && { call, runsFlow: Boolean(call.flow_state) };
  }
}
