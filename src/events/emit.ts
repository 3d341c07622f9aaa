// emit(): the transactional outbox (ARCHITECTURE rule 1). An event row and one delivery job
// per matching webhook endpoint are written in the caller's transaction, the same one that
// changes the resource's state. A change that rolls back emits nothing; one that commits
// can never lose its event.
import type { Trx } from '../store/transaction.ts';
import type { EventRow, Mode } from '../store/platform-tables.ts';
import type { Clock } from '../platform/clock.ts';
import { newId } from '../platform/ids.ts';
import type { EventType } from './catalogue.ts';
import { lockUntilCommit } from '../store/locks.ts';
import { prepareFor } from '../store/prepared.ts';
import { deferInsert, note, recall } from '../store/batch-scope.ts';

// Every status change of every resource runs these two: compiled once, not per event.
const lastSequence = prepareFor((db, resourceId: string) => db.selectFrom('events').select((eb) => eb.fn.max('sequence').as('seq'))
  .where('resource_id', '=', resourceId), 1);
const insertEvent = prepareFor((db, ...e: [string, string, Mode, string, string, string, number, string, string]) => db.insertInto('events').values({
  id: e[0], account_id: e[1], mode: e[2], type: e[3], resource_type: e[4], resource_id: e[5], sequence: e[6], data: e[7], created_at: e[8],
}), 9);

export interface EmitInput {
  accountId: string;
  mode: Mode;
  type: EventType;
  resourceType: string;
  resourceId: string;
  /** The full resource as GET returns it, after the change. */
  object: unknown;
  /** The resource's own webhook_url, which also receives its events. */
  webhookUrl?: string | null;
  /** The account's clock in this mode (a sandbox test clock moves event times too). */
  clock: Clock;
  /**
   * The resource was inserted in this very transaction and this is its first event: no
   * other transaction knows its id before we commit, so its sequence is 1 with no lock and
   * no read (one statement, and on PostgreSQL one round trip, fewer per new resource).
   */
  createdHere?: boolean;
}

/** Decides who receives an event and schedules the deliveries; provided by the webhooks module. */
export type FanOut = (trx: Trx, event: EventRow, opts: { webhookUrl: string | null }) => Promise<void>;

export class EventEmitter {
  private fanOut: FanOut = async () => {};

  setFanOut(fanOut: FanOut): void {
    this.fanOut = fanOut;
  }

  /**
   * Call in the state change's transaction. The per-resource sequence is read and taken
   * under a lock on the resource's sequence (src/store/locks.ts): events emitted without an
   * UPDATE of the resource (webhook.test) would otherwise race for the same number.
   */
  async emit(trx: Trx, input: EmitInput): Promise<EventRow> {
    let sequence = 1;
    // A ledger batch that already emitted for this resource holds its lock and knows its last
    // sequence (its event row may not be inserted yet: batch-scope.ts defers it).
    const sequenceKey = `event-sequence:${input.resourceId}`;
    const known = recall<number>(trx, sequenceKey);
    if (known !== undefined) {
      sequence = known + 1;
    } else if (!input.createdHere) {
      await lockUntilCommit(trx, `events:${input.resourceId}`);
      const [last] = await lastSequence(trx, input.resourceId);
      sequence = Number(last?.seq ?? 0) + 1;
    }
    note(trx, sequenceKey, sequence);
    const event: EventRow = {
      id: newId('event'),
      account_id: input.accountId,
      mode: input.mode,
      type: input.type,
      resource_type: input.resourceType,
      resource_id: input.resourceId,
      sequence,
      data: JSON.stringify(input.object),
      created_at: input.clock.now().toISOString(),
    };
    if (!deferInsert(trx, 'events', [event])) {
      await insertEvent(trx, event.id, event.account_id, event.mode, event.type, event.resource_type, event.resource_id, event.sequence, event.data, event.created_at);
    }
    await this.fanOut(trx, event, { webhookUrl: input.webhookUrl ?? null });
    return event;
  }
}

/** The envelope every webhook and `GET /v1/events/{id}` carries. */
export function envelope(event: EventRow): {
  id: string; object: 'event'; type: string; created_at: string; mode: Mode; sequence: number; data: { object: unknown };
} {
  return {
    id: event.id,
    object: 'event',
    type: event.type,
    created_at: event.created_at,
    mode: event.mode,
    sequence: event.sequence,
    data: { object: JSON.parse(event.data) },
  };
}
