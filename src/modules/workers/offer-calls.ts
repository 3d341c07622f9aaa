// What a worker's call does to the worker (in the call's own transition transaction):
//   answered        -> the offer is taken: busy on that call, worker.connected;
//   ended unanswered -> worker.missed: the caller's stay goes back to waiting (first in line as
//                       before) and the worker stays available behind the other idle workers,
//                       or goes offline (the queue's routing.on_missed);
//   ended after talk -> wrap_up for wrap_up_seconds (a durable job brings it back), or
//                       available at once when it has none or the caller was gone.
// Each end asks for a routing run: a worker or a caller is free again.
import type { Platform } from '../../platform/context.ts';
import type { Clock } from '../../platform/clock.ts';
import type { EventEmitter } from '../../events/emit.ts';
import { inTransaction, type Trx } from '../../store/transaction.ts';
import type { CallService } from '../calls/service.ts';
import type { CallRow } from '../calls/tables.ts';
import type { CallStatus } from '../calls/states.ts';
import { isFinal } from '../calls/states.ts';
import { MEMBER_MACHINE } from '../queues/states.ts';
import { realSeconds } from '../queues/members.ts';
import { routeSoon, routingOf } from '../queues/routing.ts';
import { emitWorker } from './routing.ts';
import { recordHistory } from './status-history.ts';
import { WORKER_MACHINE, transition } from './states.ts';
import { Problem } from '../../platform/problems.ts';
import type { WorkerRow } from './tables.ts';

export const WRAP_UP_JOB = 'workers.wrap_up_ended';

interface WrapUpJob { workerId: string; since: string }

const NO_OFFER = { offer_call_id: null, offer_queue_id: null, offer_caller_call_id: null } as const;

export class WorkerCalls {
  constructor(private readonly platform: Platform, private readonly events: EventEmitter, calls: CallService) {
    calls.onTransition((trx, call, from, clock) => this.changed(trx, call, from, clock));
    platform.jobs.register<WrapUpJob>(WRAP_UP_JOB, (job) => this.wrapUpEnded(job));
  }

  private async changed(trx: Trx, call: CallRow, from: CallStatus, clock: Clock): Promise<void> {
    if (call.status === 'in_progress') return this.answered(trx, call, clock);
    if (!isFinal(call.status)) return;
    if (from === 'in_progress') return this.ended(trx, call, clock);
    return this.missed(trx, call, clock);
  }

  private async answered(trx: Trx, call: CallRow, clock: Clock): Promise<void> {
    const worker = await this.workerWhere(trx, 'offer_call_id', call.id);
    if (!worker) return;
    if (!WORKER_MACHINE.can(worker.status, 'busy')) {
      await trx.updateTable('workers').set(NO_OFFER).where('id', '=', worker.id).execute();
      return;
    }
    const busy = await transition(trx, { events: this.events, clock }, worker, 'busy', { ...NO_OFFER, current_call_id: call.id });
    await emitWorker(trx, this.events, clock, busy, 'worker.connected');
  }

  private async missed(trx: Trx, call: CallRow, clock: Clock): Promise<void> {
    const now = clock.now().toISOString();
    // The stay reserved for this call waits on (the caller's call is not locked here: a stay
    // moves only from the status read, so a hang-up that moved it first wins).
    const held = await trx.selectFrom('queue_members').selectAll().where('peer_call_id', '=', call.id).where('status', '=', 'reserved').execute();
    for (const member of held) {
      try {
        await MEMBER_MACHINE.move(trx, member, 'waiting', { now, set: { peer_call_id: null } });
      } catch (err) {
        // The caller left first (its hang-up moved the stay): nothing to give back.
        if (!(err instanceof Problem && err.code === 'conflict')) throw err;
      }
    }
    const worker = await this.workerWhere(trx, 'offer_call_id', call.id);
    if (!worker) {
      if (held[0]) await routeSoon(this.platform, trx, held[0].account_id, held[0].mode);
      return;
    }
    const queue = worker.offer_queue_id ? await trx.selectFrom('queues').select('routing').where('id', '=', worker.offer_queue_id).executeTakeFirst() : undefined;
    const onMissed = routingOf(queue?.routing ?? null)?.on_missed ?? 'available';
    // Behind the other idle workers: the next offer goes to the next worker.
    const back = { ...NO_OFFER, ...(worker.status === 'available' ? { last_idle_at: now } : {}), updated_at: now };
    await trx.updateTable('workers').set(back).where('id', '=', worker.id).execute();
    let row: WorkerRow = { ...worker, ...back };
    await recordHistory(trx, row, 'missed', now, { callId: call.id });
    await emitWorker(trx, this.events, clock, row, 'worker.missed');
    if (onMissed === 'offline' && row.status === 'available') row = await transition(trx, { events: this.events, clock }, row, 'offline');
    await routeSoon(this.platform, trx, worker.account_id, worker.mode);
  }

  private async ended(trx: Trx, call: CallRow, clock: Clock): Promise<void> {
    const worker = await this.workerWhere(trx, 'current_call_id', call.id);
    if (!worker || worker.status !== 'busy') return;
    const talked = await trx.selectFrom('queue_members').select('id').where('peer_call_id', '=', call.id).where('reason', '=', 'bridged').executeTakeFirst();
    if (talked && worker.wrap_up_seconds > 0) {
      const wrapping = await transition(trx, { events: this.events, clock }, worker, 'wrap_up');
      await this.platform.jobs.enqueue(trx, WRAP_UP_JOB, { workerId: worker.id, since: wrapping.status_changed_at } satisfies WrapUpJob, {
        delaySeconds: realSeconds(this.platform, worker.mode, worker.wrap_up_seconds), clockId: worker.mode === 'sandbox' ? worker.account_id : null,
      });
      return;
    }
    await transition(trx, { events: this.events, clock }, worker, 'available');
    await routeSoon(this.platform, trx, worker.account_id, worker.mode);
  }

  /** The wrap-up is over, unless the worker moved since (PATCH available early, or offline). */
  private async wrapUpEnded({ workerId, since }: WrapUpJob): Promise<void> {
    await inTransaction(this.platform.database.db, async (trx) => {
      const worker = await trx.selectFrom('workers').selectAll().where('id', '=', workerId).executeTakeFirst();
      if (worker?.status !== 'wrap_up' || worker.status_changed_at !== since) return;
      const clock = await this.platform.sandboxClocks.clockFor(worker.account_id, worker.mode, trx);
      await transition(trx, { events: this.events, clock }, worker, 'available');
      await routeSoon(this.platform, trx, worker.account_id, worker.mode);
    });
  }

  private async workerWhere(trx: Trx, column: 'offer_call_id' | 'current_call_id', callId: string): Promise<WorkerRow | undefined> {
    let q = trx.selectFrom('workers').selectAll().where(column, '=', callId);
    if (this.platform.database.engine === 'postgres') q = q.forUpdate();
    return q.executeTakeFirst();
  }
}
