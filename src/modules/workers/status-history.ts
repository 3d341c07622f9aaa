// The worker's status history (migration 0038): a row per status it enters and per offer it
// misses, written in the transaction that makes the change, so the statistics summed from it
// are exact on every node and nothing a crash rolled back is counted. Callers have already
// updated the worker's row in this transaction, which holds its row lock on PostgreSQL until
// commit, so the next `seq` read here cannot be taken by another transaction meanwhile (and the
// primary key would refuse it if it were).
import type { Trx } from '../../store/transaction.ts';
import type { WorkerRow, WorkerStatusHistoryRow } from './tables.ts';

export async function recordHistory(
  trx: Trx, worker: Pick<WorkerRow, 'id' | 'account_id' | 'mode' | 'status'>, change: WorkerStatusHistoryRow['change'], at: string,
  calls: { callId?: string | null; callerCallId?: string | null } = {},
): Promise<void> {
  const last = await trx.selectFrom('worker_status_history').select((eb) => eb.fn.max('seq').as('seq'))
    .where('worker_id', '=', worker.id).executeTakeFirst();
  await trx.insertInto('worker_status_history').values({
    worker_id: worker.id, seq: Number(last?.seq ?? 0) + 1, account_id: worker.account_id, mode: worker.mode,
    change, status: worker.status, call_id: calls.callId ?? null, caller_call_id: calls.callerCallId ?? null, at,
  }).execute();
}
