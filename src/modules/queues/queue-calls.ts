// The queues' side of calls: what the enqueue and dequeue verbs hand over (FlowQueues), the
// ends of the operations a stay runs on calls (routed here by their op id prefix), and calls
// that end while waiting or bridged. QueueStays and QueueBridges do the work.
import type { Clock } from '../../platform/clock.ts';
import type { Trx } from '../../store/transaction.ts';
import type { MediaEvents } from '../../carriers/index.ts';
import type { HeardInput, MediaResult } from '../../telephony/media-ops.ts';
import type { CallRow } from '../calls/tables.ts';
import { isFinal } from '../calls/states.ts';
import type { EnqueueBody, FlowQueues } from '../calls/flows/verbs/enqueue.ts';
import type { VerbStep } from '../calls/flows/verbs/verb.ts';
import type { QueueDeps } from './deps.ts';
import { QueueBridges, type DequeueVerbBody } from './bridges.ts';
import { currentStayOf } from './members.ts';
import { QueueStays, isInQueue } from './stays.ts';
import { parseStayOp } from './wait-audio.ts';

export class QueueCalls implements FlowQueues, MediaEvents {
  readonly stays: QueueStays;
  readonly bridges: QueueBridges;

  constructor(private readonly deps: QueueDeps) {
    this.stays = new QueueStays(deps);
    this.bridges = new QueueBridges(deps);
    deps.calls.onTransition(async (trx, call, from, clock) => {
      if (isFinal(call.status) && from === 'in_progress') await this.callEnded(trx, call, clock);
    });
  }

  enqueue(step: VerbStep, body: EnqueueBody, opId: string): Promise<void> {
    return this.stays.join(step, body, opId);
  }

  dequeue(step: VerbStep, body: DequeueVerbBody, opId: string): Promise<void> {
    return this.bridges.dequeue(step, body, opId);
  }

  async finished(callId: string, opId: string, result: MediaResult): Promise<void> {
    const op = parseStayOp(opId);
    if (!op) return;
    if (op.part === 'wait') return this.stays.waitStepEnded(callId, opId, op.memberId, result);
    const member = await this.deps.platform.database.db.selectFrom('queue_members').selectAll().where('id', '=', op.memberId).executeTakeFirst();
    if (!member) return;
    if (op.part === 'bridge') return this.bridges.callerSideEnded(callId, member, result);
    await this.bridges.agentSideEnded(callId, member);
  }

  async heard(_callId: string, _input: HeardInput): Promise<void> {
    // Keys and words of a waiting caller change nothing in the queue.
  }

  /** A call ended (in its end transaction): a waiting caller leaves with `hangup`; a bridge's other side is cut. */
  private async callEnded(trx: Trx, call: CallRow, clock: Clock): Promise<void> {
    const stay = await currentStayOf(trx, call.id);
    if (stay && isInQueue(stay)) await this.stays.leave(trx, call, stay, 'hangup', clock);
    await this.bridges.callEnded(trx, call, clock);
  }
}
