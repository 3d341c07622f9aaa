// A caller's stay in a queue, from the enqueue verb to its end: joining (or being refused),
// the wait flow looped on its call, and leaving without a bridge (timeout, a leave verb,
// DELETE .../members/{call_id}, a hang-up). Every step runs in a transaction holding the
// caller's call lock, so a stay's moves and the call's end never interleave.
import type { Clock } from '../../platform/clock.ts';
import { newId } from '../../platform/ids.ts';
import { inTransaction, type Trx } from '../../store/transaction.ts';
import { lockUntilCommit } from '../../store/locks.ts';
import type { MediaResult } from '../../telephony/media-ops.ts';
import type { CallRow } from '../calls/tables.ts';
import { flowStateOf, saveFlow } from '../calls/flows/state.ts';
import { QUEUE_LIMITS, type EnqueueBody, type WaitVerb } from '../calls/flows/verbs/enqueue.ts';
import type { VerbStep } from '../calls/flows/verbs/verb.ts';
import { mediaOf, type QueueDeps } from './deps.ts';
import { continueFlow, settleWaitingVerb } from './flow-results.ts';
import { IN_QUEUE, findQueue, memberById, positionOf, queueSize, realSeconds, recentBridgedWait, secondsBetween } from './members.ts';
import { callQueueObject } from './presenter.ts';
import { MEMBER_MACHINE } from './states.ts';
import type { QueueMemberRow, QueueResult } from './tables.ts';
import { routeSoon } from './routing.ts';
import { DEFAULT_WAIT_FLOW, WAIT_OP_PREFIX, isWaitVerb, waitOp, waitOpId, type PlaceFacts } from './wait-audio.ts';
import type { CachedAudio } from '../calls/flows/cached-audio.ts';

export const TIMEOUT_JOB = 'queues.timeout';
const WAIT_URL_JOB = 'queues.wait_url';
const WAIT_AUDIO_JOB = 'queues.wait_audio';

interface WaitUrlStep { memberId: string; pass: number }
interface WaitAudioStep { memberId: string; pass: number; step: number; url: string }

export class QueueStays {
  constructor(private readonly deps: QueueDeps) {
    deps.platform.jobs.register<{ memberId: string }>(TIMEOUT_JOB, ({ memberId }) => this.timedOut(memberId));
    deps.platform.jobs.register<WaitUrlStep>(WAIT_URL_JOB, (step) => this.fetchWaitFlow(step), { maxAttempts: 1 });
    deps.platform.jobs.register<WaitAudioStep>(WAIT_AUDIO_JOB, (step) => this.fetchWaitAudio(step), { maxAttempts: 1 });
  }

  private get db() {
    return this.deps.platform.database.db;
  }

  /** The enqueue verb, in the caller's flow transaction: it joins and waits, or the flow goes on at once (full, no such queue). */
  async join(step: VerbStep, body: EnqueueBody, opId: string): Promise<void> {
    const { trx, call, state, log, clock } = step;
    const flow = this.deps.flow();
    const priority = body.priority ?? QUEUE_LIMITS.defaultPriority;
    const queue = await findQueue(trx, call.account_id, call.mode, body.queue);
    const refuse = (result: QueueResult, detail: string) => {
      const object = callQueueObject(call.id, { id: queue?.id ?? null, name: queue?.name ?? body.queue }, { result, position: null, priority, waitSeconds: 0, detail });
      return continueFlow(flow, trx, call, state, log, clock, {
        verb: 'enqueue', entry: { queue_id: object.queue_id, result, wait_seconds: 0, detail }, result: object, actionUrl: body.action_url, waited: false,
      });
    };
    if (!queue) return refuse('error', `There is no queue named or with id "${body.queue}" in ${call.mode} mode.`);
    // Joins of one queue take turns (PostgreSQL), so two never both take its last place.
    await lockUntilCommit(trx, `queue:${queue.id}`);
    if (await queueSize(trx, queue.id) >= queue.max_size) return refuse('full', `Queue ${queue.name} holds its max_size of ${queue.max_size} callers.`);
    const now = clock.now().toISOString();
    const waitUrl = body.wait_flow ? null : body.wait_url ?? (queue.wait_flow ? null : queue.wait_url);
    const waitFlow: WaitVerb[] = body.wait_flow ?? (queue.wait_flow ? JSON.parse(queue.wait_flow) as WaitVerb[] : DEFAULT_WAIT_FLOW);
    const member: QueueMemberRow = {
      id: newId('queueMember'), queue_id: queue.id, account_id: call.account_id, mode: call.mode, call_id: call.id, status: 'waiting',
      priority, enqueued_at: now, max_wait_seconds: body.max_wait_seconds ?? queue.max_wait_seconds, flow_op: opId,
      wait_flow: JSON.stringify(waitFlow), wait_url: waitUrl, wait_step: 0, wait_op: null, peer_call_id: null, peer_flow_op: null,
      dequeued_to: null, reason: null, wait_seconds: null, left_at: null, updated_at: now,
    };
    await trx.insertInto('queue_members').values(member).execute();
    if (queue.routing) await routeSoon(this.deps.platform, trx, call.account_id, call.mode);
    const position = await positionOf(trx, member);
    await flow.emit(trx, call, 'call.queue.joined', callQueueObject(call.id, queue, { result: null, position, priority, waitSeconds: 0 }), clock);
    const saved = await saveFlow(trx, call, { ...state, op: opId, seq: state.seq + 1 }, log);
    if (member.max_wait_seconds !== null) {
      await this.deps.platform.jobs.enqueue(trx, TIMEOUT_JOB, { memberId: member.id }, {
        delaySeconds: realSeconds(this.deps.platform, call.mode, member.max_wait_seconds), clockId: call.mode === 'sandbox' ? call.account_id : null,
      });
    }
    await this.playWait(trx, saved, member, 0, 0, clock);
  }

  /** Where the caller stands now, for its wait flow's placeholders and a wait_url's request. */
  async placeOf(trx: Trx, member: QueueMemberRow, clock: Clock): Promise<PlaceFacts> {
    return {
      position: await positionOf(trx, member),
      size: await queueSize(trx, member.queue_id),
      waitSeconds: secondsBetween(this.deps.platform, member.mode, member.enqueued_at, clock.now().toISOString()),
      estimatedWaitSeconds: await recentBridgedWait(trx, member.queue_id),
    };
  }

  /** Runs verb `step` of the wait flow's pass `pass` on the caller's call (a wait_url is asked first at each pass). */
  private async playWait(trx: Trx, call: CallRow, member: QueueMemberRow, pass: number, step: number, clock: Clock): Promise<void> {
    if (member.wait_url && step === 0) {
      const opId = `${WAIT_OP_PREFIX}${member.id}:u${pass}`;
      await trx.updateTable('queue_members').set({ wait_op: opId, wait_step: 0 }).where('id', '=', member.id).execute();
      await this.deps.platform.jobs.enqueue(trx, WAIT_URL_JOB, { memberId: member.id, pass } satisfies WaitUrlStep, {
        clockId: call.mode === 'sandbox' ? call.account_id : null,
      });
      return;
    }
    await this.runWaitStep(trx, call, member, pass, step, clock);
  }

  /**
   * Runs one wait step. A play whose file is not cached yet is fetched first by a job (no
   * transaction held meanwhile), which runs the step then; `fetched` is that job's answer (null:
   * it could not be fetched, and the step is a pause).
   */
  private async runWaitStep(trx: Trx, call: CallRow, member: QueueMemberRow, pass: number, step: number, clock: Clock, fetched?: CachedAudio | null): Promise<void> {
    const verb = (JSON.parse(member.wait_flow) as WaitVerb[])[step]!;
    const opId = waitOpId(member.id, pass, step);
    let audio = fetched ?? null;
    if ('play' in verb && fetched === undefined) {
      audio = await this.deps.audio.cached(verb.play.url);
      if (!audio) {
        await trx.updateTable('queue_members').set({ wait_step: step, wait_op: opId }).where('id', '=', member.id).execute();
        await this.deps.platform.jobs.enqueue(trx, WAIT_AUDIO_JOB, { memberId: member.id, pass, step, url: verb.play.url } satisfies WaitAudioStep, {
          clockId: call.mode === 'sandbox' ? call.account_id : null,
        });
        return;
      }
    }
    const op = waitOp(verb, await this.placeOf(trx, member, clock), audio);
    if (op === 'leave') return this.leave(trx, call, member, 'leave', clock);
    await trx.updateTable('queue_members').set({ wait_step: step, wait_op: opId }).where('id', '=', member.id).execute();
    await mediaOf(this.deps, call).run(trx, call, opId, op);
  }

  /** A wait play's file: fetched under the URL policy (no transaction held), then its step runs, unless the stay moved on meanwhile. */
  private async fetchWaitAudio({ memberId, pass, step, url }: WaitAudioStep): Promise<void> {
    const opId = waitOpId(memberId, pass, step);
    const before = await this.db.selectFrom('queue_members').select(['call_id', 'mode', 'wait_op', 'status']).where('id', '=', memberId).executeTakeFirst();
    if (!before || before.wait_op !== opId || !isInQueue(before)) return;
    const got = await this.deps.audio.fetch(url, before.mode);
    await inTransaction(this.db, async (trx) => {
      const call = await this.deps.calls.lock(trx, before.call_id);
      const member = await memberById(trx, memberId);
      if (!call || !member || member.wait_op !== opId || !isInQueue(member) || call.status !== 'in_progress') return;
      if (!got.ok) this.deps.platform.log.warn({ call: call.id, url, detail: got.detail }, 'queues: a wait play\'s file could not be fetched; the caller hears a pause instead');
      const clock = await this.deps.platform.sandboxClocks.clockFor(call.account_id, call.mode, trx);
      await this.runWaitStep(trx, call, member, pass, step, clock, got.ok ? got.audio : null);
    });
  }

  /** A wait step ended: the next one plays (the wait flow loops), unless the stay moved on meanwhile. */
  async waitStepEnded(callId: string, opId: string, memberId: string, result: MediaResult): Promise<void> {
    if (!('reason' in result) || result.reason !== 'finished') return; // cut short: whoever cut it moves the stay on
    await inTransaction(this.db, async (trx) => {
      const call = await this.deps.calls.lock(trx, callId);
      const member = await memberById(trx, memberId);
      if (!call || !member || member.wait_op !== opId || !isInQueue(member) || call.status !== 'in_progress') return;
      const clock = await this.deps.platform.sandboxClocks.clockFor(call.account_id, call.mode, trx);
      // A live update replaced the flow that waits here: the stay ends with it.
      if (flowStateOf(call)?.op !== member.flow_op) return this.leave(trx, call, member, 'leave', clock);
      const [, pass, step] = /:w(\d+)\.(\d+)$/.exec(opId)!.map(Number) as [number, number, number];
      const length = (JSON.parse(member.wait_flow) as WaitVerb[]).length;
      if (step + 1 < length) return this.runWaitStep(trx, call, member, pass, step + 1, clock);
      await this.playWait(trx, call, member, pass + 1, 0, clock);
    });
  }

  /** A pass of a wait_url stay: ask it (no transaction held meanwhile), then play what it answered (the last answer, or the default, if it failed). */
  private async fetchWaitFlow({ memberId, pass }: WaitUrlStep): Promise<void> {
    const opId = `${WAIT_OP_PREFIX}${memberId}:u${pass}`;
    const before = await this.db.selectFrom('queue_members').selectAll().where('id', '=', memberId).executeTakeFirst();
    if (!before || before.wait_op !== opId || !before.wait_url || !isInQueue(before)) return;
    const queue = await this.db.selectFrom('queues').selectAll().where('id', '=', before.queue_id).executeTakeFirst();
    const clock = await this.deps.platform.sandboxClocks.clockFor(before.account_id, before.mode);
    const place = await inTransaction(this.db, (trx) => this.placeOf(trx, before, clock));
    const answer = await this.deps.webhooks.fetch(before.wait_url, before.account_id, before.mode, `queuewait_${memberId}_${pass}`, {
      object: 'queue_wait_request', call_id: before.call_id,
      queue: { id: before.queue_id, name: queue?.name ?? null, position: place.position, size: place.size, wait_seconds: place.waitSeconds, estimated_wait_seconds: place.estimatedWaitSeconds },
    });
    const verbs = answer.ok && answer.verbs.every(isWaitVerb) ? answer.verbs as WaitVerb[] : null;
    await inTransaction(this.db, async (trx) => {
      const call = await this.deps.calls.lock(trx, before.call_id);
      const member = await memberById(trx, memberId);
      if (!call || !member || member.wait_op !== opId || !isInQueue(member) || call.status !== 'in_progress') return;
      const now = await this.deps.platform.sandboxClocks.clockFor(call.account_id, call.mode, trx);
      if (!verbs) this.deps.platform.log.warn({ call: call.id, url: member.wait_url }, 'queues: the wait_url gave no wait flow; the caller hears the last one');
      const next = { ...member, wait_flow: verbs ? JSON.stringify(verbs) : member.wait_flow };
      if (verbs) await trx.updateTable('queue_members').set({ wait_flow: next.wait_flow }).where('id', '=', member.id).execute();
      await this.runWaitStep(trx, call, next, pass, 0, now);
    });
  }

  /** max_wait_seconds passed: a caller still waiting leaves with `timeout`. */
  private async timedOut(memberId: string): Promise<void> {
    const seen = await this.db.selectFrom('queue_members').select(['call_id', 'status']).where('id', '=', memberId).executeTakeFirst();
    if (!seen || !isInQueue(seen)) return;
    await inTransaction(this.db, async (trx) => {
      const call = await this.deps.calls.lock(trx, seen.call_id);
      const member = await memberById(trx, memberId);
      if (!call || !member || !isInQueue(member)) return;
      const clock = await this.deps.platform.sandboxClocks.clockFor(call.account_id, call.mode, trx);
      await this.leave(trx, call, member, 'timeout', clock);
    });
  }

  /**
   * The stay ends without a bridge (timeout, leave, hangup): the member leaves, its wait audio
   * stops, call.queue.left fires, and a caller still on the line goes on with its flow.
   */
  async leave(trx: Trx, call: CallRow, member: QueueMemberRow, result: Exclude<QueueResult, 'bridged' | 'full'>, clock: Clock): Promise<void> {
    const now = clock.now().toISOString();
    const waited = secondsBetween(this.deps.platform, member.mode, member.enqueued_at, now);
    await MEMBER_MACHINE.move(trx, member, 'left', { now, set: { reason: result, wait_seconds: waited, left_at: now, wait_op: null } });
    if (member.wait_op && call.status === 'in_progress') await mediaOf(this.deps, call).interrupt(trx, call, member.wait_op);
    const queue = await trx.selectFrom('queues').select(['id', 'name']).where('id', '=', member.queue_id).executeTakeFirst();
    const object = callQueueObject(call.id, queue ?? { id: member.queue_id, name: '' }, { result, position: null, priority: member.priority, waitSeconds: waited });
    const flow = this.deps.flow();
    await flow.emit(trx, call, 'call.queue.left', object, clock);
    await settleWaitingVerb(flow, trx, call, member.flow_op, {
      verb: 'enqueue', entry: { queue_id: member.queue_id, result, wait_seconds: waited }, result: object, actionUrl: undefined, waited: true,
    });
  }
}

export function isInQueue(member: Pick<QueueMemberRow, 'status'>): boolean {
  return (IN_QUEUE as readonly string[]).includes(member.status);
}
