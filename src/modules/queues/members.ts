// The queue_members table, read and written inside the caller's transaction: who waits where,
// in what order, and taking one. Taking is race-free on both engines: the candidate's call is
// locked first, then the member is read again and moves only if it is still waiting (the
// state machine's conditional UPDATE). A hang-up ends the call under the same call lock, so a
// caller who hangs up is either taken before it or never. Candidates are not skipped when
// locked (FOR UPDATE SKIP LOCKED): the first caller's call is also locked, for a moment, by
// its own wait audio's steps, and skipping it would take a later caller out of turn.
import { sql } from 'kysely';
import type { Platform } from '../../platform/context.ts';
import type { Trx } from '../../store/transaction.ts';
import type { Mode } from '../../store/platform-tables.ts';
import type { CallRow } from '../calls/tables.ts';
import type { QueueMemberRow, QueueRow } from './tables.ts';

/** Members still in the queue (hearing its wait audio). */
export const IN_QUEUE = ['waiting', 'reserved'] as const;

/** Seconds between two instants as the mode counts them: the sandbox's simulated seconds (its time scale), real ones live. */
export function secondsBetween(platform: Platform, mode: Mode, from: string, to: string): number {
  const scale = mode === 'sandbox' ? platform.config.simTimeScale : 1;
  return Math.max(0, Math.floor((Date.parse(to) - Date.parse(from)) / 1000 / scale));
}

/** Real seconds of delay for `seconds` of the mode's time (a timer job's delay). */
export function realSeconds(platform: Platform, mode: Mode, seconds: number): number {
  return seconds * (mode === 'sandbox' ? platform.config.simTimeScale : 1);
}

export async function findQueue(trx: Trx, accountId: string, mode: Mode, ref: string): Promise<QueueRow | undefined> {
  return trx.selectFrom('queues').selectAll().where('account_id', '=', accountId).where('mode', '=', mode)
    .where(ref.startsWith('queue_') ? 'id' : 'name', '=', ref).executeTakeFirst();
}

export async function memberById(trx: Trx, id: string): Promise<QueueMemberRow | undefined> {
  return trx.selectFrom('queue_members').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The stay of `callId` that is not over (waiting, reserved or bridged), if any. */
export async function currentStayOf(trx: Trx, callId: string): Promise<QueueMemberRow | undefined> {
  return trx.selectFrom('queue_members').selectAll().where('call_id', '=', callId)
    .where('status', 'in', ['waiting', 'reserved', 'bridged']).executeTakeFirst();
}

/** Stays bridged or reserved to `callId` as the call that took them. */
export async function staysTakenBy(trx: Trx, callId: string): Promise<QueueMemberRow[]> {
  return trx.selectFrom('queue_members').selectAll().where('peer_call_id', '=', callId)
    .where('status', 'in', ['reserved', 'bridged']).execute();
}

export async function queueSize(trx: Trx, queueId: string): Promise<number> {
  const row = await trx.selectFrom('queue_members').select((eb) => eb.fn.countAll<number>().as('n'))
    .where('queue_id', '=', queueId).where('status', 'in', [...IN_QUEUE]).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Members in the queue, first to be taken first. */
export async function inQueue(trx: Trx, queueId: string): Promise<QueueMemberRow[]> {
  return trx.selectFrom('queue_members').selectAll().where('queue_id', '=', queueId).where('status', 'in', [...IN_QUEUE])
    .orderBy('priority').orderBy('enqueued_at').orderBy('id').execute();
}

/** 1-based place of `member` among those in its queue (1 is next). */
export async function positionOf(trx: Trx, member: QueueMemberRow): Promise<number> {
  const row = await trx.selectFrom('queue_members').select((eb) => eb.fn.countAll<number>().as('n'))
    .where('queue_id', '=', member.queue_id).where('status', 'in', [...IN_QUEUE])
    .where((eb) => eb.or([
      eb('priority', '<', member.priority),
      eb.and([eb('priority', '=', member.priority), eb('enqueued_at', '<', member.enqueued_at)]),
      eb.and([eb('priority', '=', member.priority), eb('enqueued_at', '=', member.enqueued_at), eb('id', '<', member.id)]),
    ]))
    .executeTakeFirstOrThrow();
  return Number(row.n) + 1;
}

/** The average wait of the last callers the queue bridged (0 before its first): the estimated wait. */
export async function recentBridgedWait(trx: Trx, queueId: string): Promise<number> {
  const rows = await trx.selectFrom('queue_members').select('wait_seconds').where('queue_id', '=', queueId)
    .where('reason', '=', 'bridged').where('wait_seconds', 'is not', null).orderBy('left_at', 'desc').limit(20).execute();
  if (rows.length === 0) return 0;
  return Math.round(rows.reduce((sum, r) => sum + Number(r.wait_seconds), 0) / rows.length);
}

export interface Taken {
  member: QueueMemberRow;
  /** The caller's call, locked for the rest of the transaction. */
  call: CallRow;
}

/**
 * Locks the next waiting caller of the queue (or the one of `callId`) with its call, or
 * returns undefined when there is none. The member is re-read under the lock: what another
 * dequeue or a hang-up did first is seen.
 */
export async function lockWaiting(platform: Platform, trx: Trx, queueId: string, callId?: string): Promise<Taken | undefined> {
  const postgres = platform.database.engine === 'postgres';
  // Each round that loses a race sees one more caller taken: bounded by the queue's size.
  for (let attempt = 0; attempt <= 1000; attempt++) {
    let q = trx.selectFrom('queue_members').innerJoin('calls', 'calls.id', 'queue_members.call_id')
      .select(['queue_members.id as member_id', 'calls.id as call_id'])
      .where('queue_members.queue_id', '=', queueId).where('queue_members.status', '=', 'waiting');
    if (callId) q = q.where('queue_members.call_id', '=', callId);
    q = q.orderBy('queue_members.priority').orderBy('queue_members.enqueued_at').orderBy('queue_members.id').limit(1);
    // PostgreSQL: wait for the first candidate's call; a dequeue that took it first leaves it
    // no longer waiting, and the next round finds the next one. SQLite's writers take turns.
    const found = postgres ? await q.modifyEnd(sql`for update of calls`).executeTakeFirst() : await q.executeTakeFirst();
    if (!found) return undefined;
    const call = await trx.selectFrom('calls').selectAll().where('id', '=', found.call_id).executeTakeFirstOrThrow();
    const member = await memberById(trx, found.member_id);
    if (member?.status === 'waiting') return { member, call };
    // Moved between our read and our lock (READ COMMITTED): look again.
  }
  return undefined;
}
