// Routing from queues to workers (docs/contact-center.md, "Routing"): the ROUTE_JOB run makes
// offers, one per transaction, while a routed queue has a waiting caller and a matching worker
// is available with no offer ringing. An offer is one transaction that
//   - places a call to the worker whose flow is a dequeue of that caller (the dequeue verb
//     takes the caller when the worker answers, so the bridge and call.queue.left `bridged`
//     are the queues' own),
//   - moves the caller's stay waiting -> reserved for that call (it keeps hearing the wait
//     audio, and no dequeue or other offer can take it),
//   - marks the worker as offered, and emits worker.offered.
// Runs of one account's mode take turns under an advisory lock (PostgreSQL; SQLite's writers
// take turns anyway) and every row is re-read under its lock before it moves, so one caller is
// offered to one worker and one worker is offered one caller at a time, across nodes. A run
// killed mid-offer rolls the whole offer back; the job runs again.
import type { Kysely } from 'kysely';
import type { Tables } from '../../store/tables.ts';
import type { Platform } from '../../platform/context.ts';
import type { Clock } from '../../platform/clock.ts';
import type { EventEmitter } from '../../events/emit.ts';
import type { Mode } from '../../store/platform-tables.ts';
import { inTransaction, type Trx } from '../../store/transaction.ts';
import { lockUntilCommit } from '../../store/locks.ts';
import type { CallService } from '../calls/service.ts';
import { validateFlow } from '../calls/flows/validate.ts';
import { MEMBER_MACHINE } from '../queues/states.ts';
import { ROUTE_JOB, routeSoon, routingOf, type QueueRouting, type RouteJob } from '../queues/routing.ts';
import type { QueueMemberRow, QueueRow } from '../queues/tables.ts';
import { presentWorkerFrom } from './presenter.ts';
import { softphoneTarget } from '../../carriers/index.ts';
import type { WorkerRow } from './tables.ts';

/** Offers one run makes before it hands over to a fresh run (a long backlog never holds one job). */
const OFFERS_PER_RUN = 50;
/** Waiting callers one offer looks through for one a free worker matches. */
const CANDIDATES = 200;

/** What the worker's call runs: take the caller; if it is gone, say so and hang up. */
export function offerFlow(queueId: string, callerCallId: string) {
  const checked = validateFlow([
    { dequeue: { queue: queueId, call_id: callerCallId } },
    { say: { text: 'The caller is no longer on the line. Goodbye.' } },
    { hangup: {} },
  ]);
  if (!checked.ok) throw new Error(`the offer flow is invalid: ${JSON.stringify(checked.errors)}`);
  return checked.verbs;
}

type Attempt = 'offered' | 'raced' | 'nothing';

export class WorkerRouting {
  private readonly db: Kysely<Tables>;

  constructor(private readonly platform: Platform, private readonly events: EventEmitter, private readonly calls: CallService) {
    this.db = platform.database.db;
    platform.jobs.register<RouteJob>(ROUTE_JOB, (job) => this.run(job));
  }

  async run({ accountId, mode }: RouteJob): Promise<void> {
    for (let i = 0; i < OFFERS_PER_RUN; i++) {
      const attempt = await inTransaction(this.db, (trx) => this.offerOne(trx, accountId, mode));
      if (attempt === 'nothing') return;
    }
    await inTransaction(this.db, (trx) => routeSoon(this.platform, trx, accountId, mode));
  }

  private async offerOne(trx: Trx, accountId: string, mode: Mode): Promise<Attempt> {
    await lockUntilCommit(trx, `routing:${accountId}:${mode}`);
    const queues = new Map((await trx.selectFrom('queues').selectAll().where('account_id', '=', accountId).where('mode', '=', mode)
      .where('routing', 'is not', null).execute()).map((q) => [q.id, q]));
    if (queues.size === 0) return 'nothing';
    // Registrations lapse in wall-clock time (presenter.ts), whatever the mode's clock.
    const free = await freeWorkers(trx, accountId, mode, new Date().toISOString());
    if (free.length === 0) return 'nothing';
    const waiting = await trx.selectFrom('queue_members').selectAll().where('queue_id', 'in', [...queues.keys()]).where('status', '=', 'waiting')
      .orderBy('priority').orderBy('enqueued_at').orderBy('id').limit(CANDIDATES).execute();
    for (const member of waiting) {
      const queue = queues.get(member.queue_id)!;
      const worker = chooseWorker(free, routingOf(queue.routing)!);
      if (worker) return this.offer(trx, queue, member, worker);
    }
    return 'nothing';
  }

  private async offer(trx: Trx, queue: QueueRow, candidate: QueueMemberRow, chosen: WorkerRow): Promise<Attempt> {
    // The caller's call first, as every queue move does; then both rows as they are now.
    const caller = await this.calls.lock(trx, candidate.call_id);
    const member = await trx.selectFrom('queue_members').selectAll().where('id', '=', candidate.id).executeTakeFirst();
    let workerQuery = trx.selectFrom('workers').selectAll().where('id', '=', chosen.id);
    if (this.platform.database.engine === 'postgres') workerQuery = workerQuery.forUpdate();
    const worker = await workerQuery.executeTakeFirst();
    if (!caller || caller.status !== 'in_progress' || member?.status !== 'waiting' || worker?.status !== 'available' || worker.offer_call_id) return 'raced';
    const clock = await this.platform.sandboxClocks.clockFor(worker.account_id, worker.mode, trx);
    const now = clock.now().toISOString();
    const leg = await this.calls.placeInTransaction(trx, {
      accountId: worker.account_id, mode: worker.mode, from: caller.direction === 'inbound' ? caller.to_number : caller.from_number,
      to: worker.sip_user ? softphoneTarget(worker.sip_user) : JSON.parse(worker.reach) as string, timeout: worker.ring_timeout_seconds, verbs: offerFlow(queue.id, caller.id),
    }, clock);
    await MEMBER_MACHINE.move(trx, member, 'reserved', { now, set: { peer_call_id: leg.id } });
    const offered: WorkerRow = { ...worker, offer_call_id: leg.id, offer_queue_id: queue.id, offer_caller_call_id: caller.id, last_offer_at: now, updated_at: now };
    await trx.updateTable('workers').set({ offer_call_id: leg.id, offer_queue_id: queue.id, offer_caller_call_id: caller.id, last_offer_at: now, updated_at: now })
      .where('id', '=', worker.id).execute();
    await emitWorker(trx, this.events, clock, offered, 'worker.offered');
    return 'offered';
  }
}

/**
 * Available workers of the mode with no offer ringing that routing can dial: reached at a
 * number or a SIP URI (live: dialled directly; sandbox: answered like a number), or (live
 * mode) at a softphone with a registration that has not lapsed at `now`. A
 * softphone that never registered, unregistered or stopped refreshing is skipped, as if it
 * were offline, and is offered callers again as soon as it registers (softphone-registry.ts).
 */
function freeWorkers(trx: Trx, accountId: string, mode: Mode, now: string): Promise<WorkerRow[]> {
  return trx.selectFrom('workers').selectAll().where('account_id', '=', accountId).where('mode', '=', mode)
    .where('status', '=', 'available').where('offer_call_id', 'is', null)
    .where((eb) => eb.or([
      eb('reach', 'like', '"+%'),
      eb('reach', 'like', '"sip:%'),
      eb('reach', 'like', '"sips:%'),
      ...(mode === 'live'
        ? [eb.exists(eb.selectFrom('sip_registrations').select('sip_registrations.sip_user')
          .whereRef('sip_registrations.sip_user', '=', 'workers.sip_user').where('sip_registrations.expires_at', '>', now))]
        : []),
    ]))
    .orderBy('last_idle_at').orderBy('id').execute();
}

/** The workers a queue's routing may offer its callers to (its worker_ids, with all its required skills). */
export function chooseWorkers<W extends Pick<WorkerRow, 'id' | 'skills'>>(workers: readonly W[], routing: QueueRouting): W[] {
  return workers.filter((w) => {
    if (routing.worker_ids && !routing.worker_ids.includes(w.id)) return false;
    const skills = JSON.parse(w.skills) as string[];
    return routing.required_skills.every((s) => skills.includes(s));
  });
}

/** The worker the queue's strategy picks among the free ones that match it (`free` is longest idle first). */
export function chooseWorker(free: readonly WorkerRow[], routing: QueueRouting): WorkerRow | undefined {
  const matching = chooseWorkers(free, routing);
  if (routing.strategy === 'longest_idle') return matching[0];
  // round_robin: never offered first, then the least recently offered; ties by idle time.
  return [...matching].sort((a, b) => (a.last_offer_at ?? '').localeCompare(b.last_offer_at ?? ''))[0];
}

export async function emitWorker(trx: Trx, events: EventEmitter, clock: Clock, row: WorkerRow, type: 'worker.offered' | 'worker.connected' | 'worker.missed'): Promise<void> {
  await events.emit(trx, {
    accountId: row.account_id, mode: row.mode, type, resourceType: 'worker', resourceId: row.id, object: await presentWorkerFrom(trx, row), webhookUrl: null, clock,
  });
}
