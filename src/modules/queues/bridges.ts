// Taking a caller out of a queue and bridging it: to a number dialled for it (POST
// .../dequeue {"to"}: the flow's `bridge` operation, as a dial runs it), or to a call in
// progress (the dequeue verb, or POST .../dequeue {"call_id"}, which hands that call a
// dequeue verb): both calls run a `connect` operation naming the other. When either side's
// operation ends, its flow goes on and the other's is cut (in a transaction of its own, after
// this one commits: one transaction never holds two calls' locks, so two ends at once cannot
// deadlock).
import type { Clock } from '../../platform/clock.ts';
import { inTransaction, type Trx } from '../../store/transaction.ts';
import type { MediaResult } from '../../telephony/media-ops.ts';
import type { CallRow } from '../calls/tables.ts';
import { saveFlow } from '../calls/flows/state.ts';
import { FLOW_LIMITS } from '../calls/flows/verbs/common.ts';
import type { VerbStep } from '../calls/flows/verbs/verb.ts';
import { mediaOf, type QueueDeps } from './deps.ts';
import { continueFlow, settleWaitingVerb } from './flow-results.ts';
import { findQueue, lockWaiting, memberById, secondsBetween, type Taken } from './members.ts';
import { callQueueObject } from './presenter.ts';
import { MEMBER_MACHINE } from './states.ts';
import type { QueueMemberRow } from './tables.ts';
import { agentOpId, bridgeOpId } from './wait-audio.ts';

export interface DequeueVerbBody {
  queue: string;
  call_id?: string | undefined;
  time_limit?: number | undefined;
  action_url?: string | undefined;
}

export interface DialBridge {
  to: string;
  callerId: string | undefined;
  ringTimeoutSeconds: number;
  timeLimitSeconds: number;
}

type DequeueResult = 'bridged' | 'timeout' | 'hangup' | 'error';

/** A bridge of two calls ended (in the transaction that ended it): the caller's call, the other call. */
export type BridgeEndedListener = (trx: Trx, callerCallId: string, peerCallId: string, clock: Clock) => Promise<void>;

export class QueueBridges {
  private readonly endedListeners: BridgeEndedListener[] = [];

  constructor(private readonly deps: QueueDeps) {}

  /** Monitors follow the ends of the conversations they supervise this way. */
  onBridgeEnded(listener: BridgeEndedListener): void {
    this.endedListeners.push(listener);
  }

  private async bridgeEnded(trx: Trx, member: QueueMemberRow, clock: Clock): Promise<void> {
    if (!member.peer_call_id) return;
    for (const listener of this.endedListeners) await listener(trx, member.call_id, member.peer_call_id, clock);
  }

  private get db() {
    return this.deps.platform.database.db;
  }

  /** The dequeue verb, in the taking call's flow transaction: take a caller and connect the two, or go on at once. */
  async dequeue(step: VerbStep, body: DequeueVerbBody, opId: string): Promise<void> {
    const { trx, call: agent, state, log, clock } = step;
    const queue = await findQueue(trx, agent.account_id, agent.mode, body.queue);
    const settle = (result: DequeueResult, detail: string | null, callerId: string | null = null) => continueFlow(this.deps.flow(), trx, agent, state, log, clock, {
      verb: 'dequeue', entry: { queue_id: queue?.id ?? null, result, caller_call_id: callerId, detail },
      result: dequeueObject(agent.id, queue?.id ?? null, result, callerId, 0), actionUrl: body.action_url, waited: false,
    });
    if (!queue) return settle('error', `There is no queue named or with id "${body.queue}" in ${agent.mode} mode.`);
    const refusal = mediaOf(this.deps, agent).cannotRun?.({ kind: 'connect', peerCallId: agent.id, timeLimitSeconds: 1 }) ?? null;
    if (refusal) return settle('error', refusal);
    // A POST .../dequeue {"call_id"} held a caller for this call: that one, else the one named, else the next.
    const taken = await this.lockReservedFor(trx, queue.id, agent.id) ?? await lockWaiting(this.deps.platform, trx, queue.id, body.call_id);
    if (!taken) {
      const gone = body.call_id ? await this.lastStay(trx, queue.id, body.call_id) : undefined;
      if (gone?.reason === 'hangup') return settle('hangup', `${body.call_id} hung up before it was taken.`, body.call_id ?? null);
      return settle('timeout', body.call_id ? `${body.call_id} is not waiting in ${queue.name}.` : `No caller is waiting in ${queue.name}.`);
    }
    if (taken.call.id === agent.id) return settle('error', 'A call cannot take itself out of a queue.');
    const saved = await saveFlow(trx, agent, { ...state, op: opId, seq: state.seq + 1 }, log);
    await this.connect(trx, taken, saved, opId, body.time_limit ?? FLOW_LIMITS.dialTimeLimitSeconds, clock);
  }

  private async lockReservedFor(trx: Trx, queueId: string, agentId: string): Promise<Taken | undefined> {
    const reserved = await trx.selectFrom('queue_members').select(['id', 'call_id']).where('queue_id', '=', queueId)
      .where('status', '=', 'reserved').where('peer_call_id', '=', agentId).executeTakeFirst();
    if (!reserved) return undefined;
    const call = await this.deps.calls.lock(trx, reserved.call_id);
    const member = await memberById(trx, reserved.id);
    return call && member?.status === 'reserved' ? { call, member } : undefined;
  }

  private lastStay(trx: Trx, queueId: string, callId: string): Promise<QueueMemberRow | undefined> {
    return trx.selectFrom('queue_members').selectAll().where('queue_id', '=', queueId).where('call_id', '=', callId)
      .orderBy('id', 'desc').limit(1).executeTakeFirst();
  }

  /** The caller leaves the queue bridged: its wait stops, and both calls connect to each other. */
  private async connect(trx: Trx, { call: caller, member }: Taken, agent: CallRow, agentFlowOp: string, timeLimitSeconds: number, clock: Clock): Promise<void> {
    const now = clock.now().toISOString();
    const waited = secondsBetween(this.deps.platform, member.mode, member.enqueued_at, now);
    const moved = await MEMBER_MACHINE.move(trx, member, 'bridged', {
      now, set: { reason: 'bridged', wait_seconds: waited, left_at: now, wait_op: bridgeOpId(member.id), peer_call_id: agent.id, peer_flow_op: agentFlowOp },
    });
    const media = mediaOf(this.deps, caller);
    if (member.wait_op) await media.interrupt(trx, caller, member.wait_op);
    // Mixed where the caller's call is: an agent's call held by another media node joins it over a node-to-node leg.
    const home = caller.node ?? null;
    await media.run(trx, caller, bridgeOpId(member.id), { kind: 'connect', peerCallId: agent.id, timeLimitSeconds, home });
    await mediaOf(this.deps, agent).run(trx, agent, agentOpId(member.id), { kind: 'connect', peerCallId: caller.id, timeLimitSeconds, home });
    await this.left(trx, caller, moved, waited, clock);
  }

  /** POST .../dequeue {"to"}: the caller (locked, waiting) is bridged to a number dialled for it. */
  async dial(trx: Trx, { call: caller, member }: Taken, dial: DialBridge, clock: Clock): Promise<QueueMemberRow> {
    const now = clock.now().toISOString();
    const waited = secondsBetween(this.deps.platform, member.mode, member.enqueued_at, now);
    const moved = await MEMBER_MACHINE.move(trx, member, 'bridged', {
      now, set: { reason: 'bridged', wait_seconds: waited, left_at: now, wait_op: bridgeOpId(member.id), dequeued_to: dial.to },
    });
    const media = mediaOf(this.deps, caller);
    if (member.wait_op) await media.interrupt(trx, caller, member.wait_op);
    await media.run(trx, caller, bridgeOpId(member.id), {
      kind: 'bridge', to: dial.to, callerId: dial.callerId ?? caller.from_number, ringTimeoutSeconds: dial.ringTimeoutSeconds, timeLimitSeconds: dial.timeLimitSeconds,
    });
    await this.left(trx, caller, moved, waited, clock);
    return moved;
  }

  private async left(trx: Trx, caller: CallRow, member: QueueMemberRow, waited: number, clock: Clock): Promise<void> {
    const queue = await trx.selectFrom('queues').select(['id', 'name']).where('id', '=', member.queue_id).executeTakeFirst();
    await this.deps.flow().emit(trx, caller, 'call.queue.left',
      callQueueObject(caller.id, queue ?? { id: member.queue_id, name: '' }, { result: 'bridged', position: null, priority: member.priority, waitSeconds: waited }), clock);
  }

  /**
   * The caller's side of a bridge ended (the dialled party or the other call hung up, the time
   * limit, or it was cut because the other side ended): the stay is over, the caller's flow goes
   * on with `bridged` (or `error` when the dialled number never answered), the other side is cut.
   */
  async callerSideEnded(callId: string, member: QueueMemberRow, result: MediaResult): Promise<void> {
    await inTransaction(this.db, async (trx) => {
      const call = await this.deps.calls.lock(trx, callId);
      const now = await memberById(trx, member.id);
      if (!call || now?.status !== 'bridged') return;
      const clock = await this.deps.platform.sandboxClocks.clockFor(call.account_id, call.mode, trx);
      const at = clock.now().toISOString();
      const unanswered = result.kind === 'bridge' && !['completed', 'interrupted', 'hangup'].includes(result.outcome) ? result.outcome : null;
      const moved = await MEMBER_MACHINE.move(trx, now, 'left', { now: at, set: { wait_op: null, ...(unanswered ? { reason: 'error' as const } : {}) } });
      await this.bridgeEnded(trx, now, clock);
      const talk = result.kind === 'bridge' ? result.talkSeconds : secondsBetween(this.deps.platform, call.mode, now.left_at ?? at, at);
      const queue = await trx.selectFrom('queues').select(['id', 'name']).where('id', '=', now.queue_id).executeTakeFirst();
      const detail = unanswered ? `The dequeue's dial to ${now.dequeued_to} ended ${unanswered}.` : null;
      const object = callQueueObject(call.id, queue ?? { id: now.queue_id, name: '' }, {
        result: moved.reason, position: null, priority: now.priority, waitSeconds: Number(now.wait_seconds ?? 0), detail,
      });
      await settleWaitingVerb(this.deps.flow(), trx, call, now.flow_op, {
        verb: 'enqueue', entry: { queue_id: now.queue_id, result: moved.reason, wait_seconds: Number(now.wait_seconds ?? 0), talk_seconds: talk, ...(detail ? { detail } : {}) },
        result: object, actionUrl: undefined, waited: true,
      });
      if (now.peer_call_id) this.cutAfterCommit(trx, now.peer_call_id, agentOpId(now.id));
    });
  }

  /** The taking call's side ended: its dequeue verb goes on with `bridged`, and the caller's side is cut. */
  async agentSideEnded(callId: string, member: QueueMemberRow): Promise<void> {
    await inTransaction(this.db, async (trx) => {
      const call = await this.deps.calls.lock(trx, callId);
      const now = await memberById(trx, member.id);
      if (!call || !now?.peer_flow_op) return;
      const clock = await this.deps.platform.sandboxClocks.clockFor(call.account_id, call.mode, trx);
      const talk = secondsBetween(this.deps.platform, call.mode, now.left_at ?? clock.now().toISOString(), clock.now().toISOString());
      await settleWaitingVerb(this.deps.flow(), trx, call, now.peer_flow_op, {
        verb: 'dequeue', entry: { queue_id: now.queue_id, result: 'bridged', caller_call_id: now.call_id, talk_seconds: talk },
        result: dequeueObject(call.id, now.queue_id, 'bridged', now.call_id, talk), actionUrl: undefined, waited: true,
      });
      if (now.status === 'bridged') this.cutAfterCommit(trx, now.call_id, bridgeOpId(now.id));
    });
  }

  /** A call of a bridge ended (in its end transaction): the other side is cut once this commits. */
  async callEnded(trx: Trx, call: CallRow, clock: Clock): Promise<void> {
    const now = clock.now().toISOString();
    const asCaller = await trx.selectFrom('queue_members').selectAll().where('call_id', '=', call.id).where('status', '=', 'bridged').execute();
    for (const member of asCaller) {
      await MEMBER_MACHINE.move(trx, member, 'left', { now, set: { wait_op: null } });
      await this.bridgeEnded(trx, member, clock);
      if (member.peer_call_id) this.cutAfterCommit(trx, member.peer_call_id, agentOpId(member.id));
    }
    const asAgent = await trx.selectFrom('queue_members').selectAll().where('peer_call_id', '=', call.id).where('status', 'in', ['bridged', 'reserved']).execute();
    for (const member of asAgent) {
      if (member.status === 'bridged') this.cutAfterCommit(trx, member.call_id, bridgeOpId(member.id));
      // It reserved a caller its flow never came to take: the caller waits on, first in line as before.
      else await MEMBER_MACHINE.move(trx, member, 'waiting', { now, set: { peer_call_id: null } });
    }
  }

  private cutAfterCommit(trx: Trx, callId: string, opId: string): void {
    trx.afterCommit(() => {
      void inTransaction(this.db, async (next) => {
        const call = await this.deps.calls.lock(next, callId);
        if (call?.status === 'in_progress') await mediaOf(this.deps, call).interrupt(next, call, opId);
      }).catch((err) => this.deps.platform.log.error({ err, call: callId }, 'queues: cutting the other side of a bridge failed'));
    });
  }
}

/** What a dequeue's action_url receives (the CallDequeue schema). */
export function dequeueObject(callId: string, queueId: string | null, result: DequeueResult, callerId: string | null, talkSeconds: number) {
  return { object: 'call_dequeue' as const, call_id: callId, queue_id: queueId, result, caller_call_id: callerId, talk_seconds: talkSeconds };
}
