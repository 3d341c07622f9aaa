// Queues as a resource: create, list, read, change and delete them, list who waits, and take
// or drop a caller through the API. The calls' side (joining, waiting, bridging) is
// queue-calls.ts; this file checks requests and hands over.
import type { Kysely } from 'kysely';
import type { Tables } from '../../store/tables.ts';
import type { Mode } from '../../store/platform-tables.ts';
import type { Platform } from '../../platform/context.ts';
import type { Clock } from '../../platform/clock.ts';
import { newId } from '../../platform/ids.ts';
import { fetchPage } from '../../platform/pagination.ts';
import { Problem, invalidField, notFound } from '../../platform/problems.ts';
import { isUniqueViolation } from '../../platform/errors.ts';
import { inTransaction, type Trx } from '../../store/transaction.ts';
import { waitFlowUrls, type WaitVerb } from '../calls/flows/verbs/enqueue.ts';
import { FLOW_LIMITS } from '../calls/flows/verbs/common.ts';
import type { CallService } from '../calls/service.ts';
import type { FlowInterpreter } from '../calls/flows/interpreter.ts';
import type { VoiceCarriers } from '../../carriers/index.ts';
import { assertWebhookUrlAllowed } from '../webhooks/url-policy.ts';
import { IN_QUEUE, inQueue, lockWaiting, memberById, positionOf, secondsBetween, type Taken } from './members.ts';
import { presentMember, presentQueue, type QueueStats } from './presenter.ts';
import type { QueueCalls } from './queue-calls.ts';
import { DEFAULT_QUEUE_SIZE } from './schema.ts';
import { MEMBER_MACHINE } from './states.ts';
import { isInQueue } from './stays.ts';
import type { QueueMemberRow, QueueRow } from './tables.ts';
import { routeSoon, type QueueRouting } from './routing.ts';
import type { BridgeEndedListener } from './bridges.ts';

export interface QueueInput {
  name?: string | undefined;
  max_size?: number | undefined;
  max_wait_seconds?: number | null | undefined;
  wait_flow?: WaitVerb[] | undefined;
  wait_url?: string | null | undefined;
  routing?: QueueRouting | null | undefined;
}

export type DequeueInput =
  | { to: string; caller_id?: string | undefined; timeout?: number | undefined; time_limit?: number | undefined }
  | { call_id: string; time_limit?: number | undefined };

/** `front` in the path takes the next caller. */
export const FRONT = 'front';

export class QueueService {
  private readonly db: Kysely<Tables>;

  constructor(
    private readonly platform: Platform,
    private readonly calls: CallService,
    private readonly carriers: VoiceCarriers,
    private readonly interpreter: FlowInterpreter,
    private readonly queueCalls: QueueCalls,
  ) {
    this.db = platform.database.db;
  }
  /** A bridge of two calls ended (the dequeue's conversation is over): the monitors module listens. */
  onBridgeEnded(listener: BridgeEndedListener): void {
    this.queueCalls.bridges.onBridgeEnded(listener);
  }


  async create(accountId: string, mode: Mode, clock: Clock, input: QueueInput) {
    await this.checkWait(mode, input);
    const now = clock.now().toISOString();
    const row: QueueRow = {
      id: newId('queue'), account_id: accountId, mode, name: input.name!, max_size: input.max_size ?? DEFAULT_QUEUE_SIZE,
      max_wait_seconds: input.max_wait_seconds ?? null, wait_flow: input.wait_flow ? JSON.stringify(input.wait_flow) : null,
      wait_url: input.wait_url ?? null, routing: input.routing ? JSON.stringify(input.routing) : null, created_at: now, updated_at: now,
    };
    await this.named(input.name!, () => this.db.insertInto('queues').values(row).execute());
    return presentQueue(row, emptyStats());
  }

  async list(accountId: string, mode: Mode, clock: Clock, page: { limit: number; startingAfter?: string | undefined; name?: string | undefined }) {
    let q = this.db.selectFrom('queues').selectAll().where('account_id', '=', accountId).where('mode', '=', mode);
    if (page.name !== undefined) q = q.where('name', '=', page.name);
    const rows = await fetchPage(q, page);
    const stats = new Map<string, QueueStats>();
    await inTransaction(this.db, async (trx) => {
      for (const row of rows) stats.set(row.id, await this.stats(trx, row, clock));
    });
    return { rows, present: (row: QueueRow) => presentQueue(row, stats.get(row.id)!) };
  }

  async get(accountId: string, mode: Mode, clock: Clock, id: string) {
    return inTransaction(this.db, async (trx) => {
      const row = await this.owned(trx, accountId, mode, id);
      return presentQueue(row, await this.stats(trx, row, clock));
    });
  }

  async update(accountId: string, mode: Mode, clock: Clock, id: string, input: QueueInput) {
    return inTransaction(this.db, async (trx) => {
      const row = await this.owned(trx, accountId, mode, id);
      // An empty wait_flow removes it.
      const waitFlow = input.wait_flow !== undefined ? input.wait_flow : row.wait_flow ? JSON.parse(row.wait_flow) as WaitVerb[] : [];
      const waitUrl = input.wait_url !== undefined ? input.wait_url : row.wait_url;
      await this.checkWait(mode, { wait_flow: waitFlow, wait_url: input.wait_url === undefined ? undefined : waitUrl }, waitUrl);
      const changes: Partial<QueueRow> = {
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.max_size !== undefined ? { max_size: input.max_size } : {}),
        ...(input.max_wait_seconds !== undefined ? { max_wait_seconds: input.max_wait_seconds } : {}),
        ...(input.wait_flow !== undefined ? { wait_flow: input.wait_flow.length > 0 ? JSON.stringify(input.wait_flow) : null } : {}),
        ...(input.wait_url !== undefined ? { wait_url: input.wait_url } : {}),
        ...(input.routing !== undefined ? { routing: input.routing ? JSON.stringify(input.routing) : null } : {}),
        updated_at: clock.now().toISOString(),
      };
      await this.named(input.name ?? row.name, () => trx.updateTable('queues').set(changes).where('id', '=', id).execute());
      // New routing may match callers already waiting.
      if (input.routing) await routeSoon(this.platform, trx, accountId, mode);
      const next = { ...row, ...changes };
      return presentQueue(next, await this.stats(trx, next, clock));
    });
  }

  /** Refused while a caller waits in it or talks through it; its past stays go with it. */
  async delete(accountId: string, mode: Mode, clock: Clock, id: string) {
    return inTransaction(this.db, async (trx) => {
      const row = await this.owned(trx, accountId, mode, id);
      const busy = await trx.selectFrom('queue_members').select('call_id').where('queue_id', '=', id)
        .where('status', 'in', [...IN_QUEUE, 'bridged']).limit(1).executeTakeFirst();
      if (busy) throw new Problem('queue_not_empty', `Queue ${row.name} still has callers (${busy.call_id} among them); take them or let them leave first.`);
      await trx.deleteFrom('queue_members').where('queue_id', '=', id).execute();
      await trx.deleteFrom('queues').where('id', '=', id).execute();
      return { id, object: 'queue' as const, deleted: true as const };
    });
  }

  /** Callers in the queue, next first. */
  async members(accountId: string, mode: Mode, clock: Clock, id: string) {
    return inTransaction(this.db, async (trx) => {
      const queue = await this.owned(trx, accountId, mode, id);
      const now = clock.now().toISOString();
      const rows = await inQueue(trx, queue.id);
      return { object: 'list' as const, data: rows.map((m, i) => presentMember(m, i + 1, secondsBetween(this.platform, mode, m.enqueued_at, now))), has_more: false, next_cursor: null };
    });
  }

  /** Every stay of one call in this account's queues, oldest first, with its queue's name (the console's call page). */
  async staysOf(accountId: string, mode: Mode, clock: Clock, callId: string) {
    const rows = await this.db.selectFrom('queue_members as m').innerJoin('queues as q', 'q.id', 'm.queue_id')
      .selectAll('m').select('q.name as queue_name')
      .where('m.call_id', '=', callId).where('m.account_id', '=', accountId).where('m.mode', '=', mode)
      .orderBy('m.enqueued_at').orderBy('m.id').limit(100).execute();
    const now = clock.now().toISOString();
    return rows.map((m) => ({
      ...presentMember(m, null, m.wait_seconds !== null ? Number(m.wait_seconds) : secondsBetween(this.platform, mode, m.enqueued_at, now)),
      queue_name: m.queue_name,
      left_at: m.left_at,
    }));
  }

  /** POST /v1/queues/{id}/members/{call_id}/dequeue: dial and bridge the caller, or bridge it to a call in progress. */
  async dequeue(accountId: string, mode: Mode, clock: Clock, id: string, callRef: string, input: DequeueInput) {
    return inTransaction(this.db, async (trx) => {
      const queue = await this.owned(trx, accountId, mode, id);
      if ('to' in input) {
        const taken = await this.take(trx, queue, callRef);
        const moved = await this.queueCalls.bridges.dial(trx, taken, {
          to: input.to, callerId: input.caller_id, ringTimeoutSeconds: input.timeout ?? 30, timeLimitSeconds: input.time_limit ?? FLOW_LIMITS.dialTimeLimitSeconds,
        }, clock);
        return this.present(trx, moved, clock);
      }
      // The taking call is locked before the caller, as its own dequeue verb does: never the other way round.
      const agent = await this.calls.lockOwned(trx, accountId, mode, input.call_id);
      if (agent.status !== 'in_progress') throw new Problem('call_not_in_progress', `Only a call in progress can take a caller; call ${agent.id} is ${agent.status}.`);
      const refusal = this.carriers.named(agent.carrier).media.cannotRun?.({ kind: 'connect', peerCallId: agent.id, timeLimitSeconds: 1 }) ?? null;
      if (refusal) throw new Problem('flow_not_supported', `Call ${agent.id} cannot be bridged to a waiting caller: ${refusal}.`);
      const own = await trx.selectFrom('queue_members').select('queue_id').where('call_id', '=', agent.id).where('status', 'in', [...IN_QUEUE, 'bridged']).executeTakeFirst();
      if (own) throw new Problem('conflict', `Call ${agent.id} is itself in queue ${own.queue_id}; it cannot take a caller.`);
      const taken = await this.take(trx, queue, callRef);
      if (taken.call.id === agent.id) throw invalidField('call_id', 'is the waiting caller itself.');
      await MEMBER_MACHINE.move(trx, taken.member, 'reserved', { now: clock.now().toISOString(), set: { peer_call_id: agent.id } });
      // The call's flow becomes a dequeue of this caller (now, or once its running verb is cut).
      await this.interpreter.replace(trx, agent, { verbs: [{ dequeue: { queue: queue.id, call_id: taken.call.id, ...(input.time_limit ? { time_limit: input.time_limit } : {}) } }] }, clock);
      return this.present(trx, (await memberById(trx, taken.member.id))!, clock);
    });
  }

  /** DELETE /v1/queues/{id}/members/{call_id}: the caller leaves (`leave`) and its flow goes on after the enqueue. */
  async remove(accountId: string, mode: Mode, clock: Clock, id: string, callId: string) {
    return inTransaction(this.db, async (trx) => {
      const queue = await this.owned(trx, accountId, mode, id);
      const call = await this.calls.lock(trx, callId);
      const member = call ? await trx.selectFrom('queue_members').selectAll().where('queue_id', '=', queue.id).where('call_id', '=', callId)
        .where('status', 'in', [...IN_QUEUE]).executeTakeFirst() : undefined;
      if (!call || !member) throw this.notWaiting(queue, callId);
      await this.queueCalls.stays.leave(trx, call, member, 'leave', clock);
      return this.present(trx, (await memberById(trx, member.id))!, clock);
    });
  }

  private async take(trx: Trx, queue: QueueRow, callRef: string): Promise<Taken> {
    const taken = await lockWaiting(this.platform, trx, queue.id, callRef === FRONT ? undefined : callRef);
    if (taken) return taken;
    if (callRef === FRONT) throw new Problem('queue_empty', `No caller is waiting in queue ${queue.name}.`);
    throw this.notWaiting(queue, callRef);
  }

  private notWaiting(queue: QueueRow, callId: string): Problem {
    return new Problem('queue_member_not_waiting', `Call ${callId} is not waiting in queue ${queue.name} (it was taken, left, or never joined).`);
  }

  private async present(trx: Trx, member: QueueMemberRow, clock: Clock) {
    const until = member.left_at ?? clock.now().toISOString();
    return presentMember(member, isInQueue(member) ? await positionOf(trx, member) : null, secondsBetween(this.platform, member.mode, member.enqueued_at, until));
  }

  private async stats(trx: Trx, queue: QueueRow, clock: Clock): Promise<QueueStats> {
    const now = clock.now().toISOString();
    const waits = (await inQueue(trx, queue.id)).map((m) => secondsBetween(this.platform, queue.mode, m.enqueued_at, now));
    if (waits.length === 0) return emptyStats();
    return {
      current_size: waits.length,
      average_wait_seconds: Math.round(waits.reduce((a, b) => a + b, 0) / waits.length),
      oldest_wait_seconds: Math.max(...waits),
    };
  }

  private async owned(trx: Trx, accountId: string, mode: Mode, id: string): Promise<QueueRow> {
    const row = await trx.selectFrom('queues').selectAll().where('id', '=', id).where('account_id', '=', accountId).where('mode', '=', mode).executeTakeFirst();
    if (!row) throw notFound('queue', id);
    return row;
  }

  private async checkWait(mode: Mode, input: Pick<QueueInput, 'wait_flow' | 'wait_url'>, currentUrl?: string | null): Promise<void> {
    const url = input.wait_url ?? currentUrl ?? null;
    if (input.wait_flow && input.wait_flow.length > 0 && url) throw invalidField(input.wait_url ? 'wait_url' : 'wait_flow', 'give at most one of wait_flow and wait_url.', 'not_allowed');
    if (input.wait_url) await assertWebhookUrlAllowed(input.wait_url, mode, this.platform.config, 'wait_url');
    for (const { path, url } of waitFlowUrls(input.wait_flow)) await assertWebhookUrlAllowed(url, mode, this.platform.config, path);
  }

  /** Runs a write that may break the unique name: the loser of a race gets the same 409 as a plain duplicate. */
  private async named<T>(name: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (isUniqueViolation(err as { code?: unknown })) throw new Problem('queue_name_taken', `A queue named ${name} already exists in this mode; names are unique per account and mode.`);
      throw err;
    }
  }
}

function emptyStats(): QueueStats {
  return { current_size: 0, average_wait_seconds: 0, oldest_wait_seconds: 0 };
}
