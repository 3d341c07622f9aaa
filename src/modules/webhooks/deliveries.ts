// Deliveries, their attempts, dead letters and replay. A dead letter is a delivery whose
// last scheduled attempt failed (status `dead`); replaying one (or a failed one) starts a
// new round of attempts on the same delivery, so the receiver sees the same event id and
// the attempt history stays in one place.
import { fetchPage, type PageInput } from '../../platform/pagination.ts';
import type { Kysely } from 'kysely';
import type { Tables } from '../../store/tables.ts';
import type { Mode } from '../../store/platform-tables.ts';
import type { Clock } from '../../platform/clock.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Trx } from '../../store/transaction.ts';
import { inTransaction } from '../../store/transaction.ts';
import { Problem, notFound } from '../../platform/problems.ts';
import { DELIVER_JOB, DELIVER_JOB_OPTIONS, orderKey, type DeliverPayload } from './fan-out.ts';
import { assertTransition } from './states.ts';
import type { DeliveryStatus, WebhookAttemptRow, WebhookDeliveryRow } from './tables.ts';

/** The most deliveries one bulk replay request re-queues; `has_more` says to call again. */
export const BULK_REPLAY_LIMIT = 1000;

export interface Attempt {
  attempt: number;
  attempted_at: string;
  status_code: number | null;
  latency_ms: number;
  response_excerpt: string | null;
  error: string | null;
  next_attempt_at: string | null;
}

export interface Delivery {
  id: string;
  object: 'webhook_delivery';
  mode: Mode;
  event_id: string;
  event_type: string;
  resource_id: string;
  webhook_id: string | null;
  url: string;
  status: DeliveryStatus;
  attempt_count: number;
  replay_count: number;
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  succeeded_at: string | null;
  dead_lettered_at: string | null;
  created_at: string;
  attempts: Attempt[];
}

export interface DeliveryFilters {
  webhookId?: string | undefined;
  eventId?: string | undefined;
  eventType?: string | undefined;
  status?: DeliveryStatus | undefined;
  createdGte?: string | undefined;
  createdLte?: string | undefined;
}

export class DeliveryService {
  constructor(private readonly db: Kysely<Tables>, private readonly jobs: JobQueue, private readonly clock: Clock) {}

  async list(accountId: string, mode: Mode, filters: DeliveryFilters, page: PageInput): Promise<WebhookDeliveryRow[]> {
    let q = this.db.selectFrom('webhook_deliveries').selectAll().where('account_id', '=', accountId).where('mode', '=', mode);
    if (filters.webhookId) q = q.where('webhook_id', '=', filters.webhookId);
    if (filters.eventId) q = q.where('event_id', '=', filters.eventId);
    if (filters.eventType) q = q.where('event_type', '=', filters.eventType);
    if (filters.status) q = q.where('status', '=', filters.status);
    if (filters.createdGte) q = q.where('created_at', '>=', filters.createdGte);
    if (filters.createdLte) q = q.where('created_at', '<=', filters.createdLte);
    return fetchPage(q, page);
  }

  async get(accountId: string, mode: Mode, id: string, db: Kysely<Tables> = this.db): Promise<WebhookDeliveryRow> {
    const row = await db.selectFrom('webhook_deliveries').selectAll()
      .where('id', '=', id).where('account_id', '=', accountId).where('mode', '=', mode).executeTakeFirst();
    if (!row) throw notFound('webhook delivery', id);
    return row;
  }

  /** Presents rows with their attempts, fetched for the whole page in one query. */
  /** A delivery that is dead now; one replayed since (or never dead) is not a dead letter: 404 saying where it is. */
  async getDead(accountId: string, mode: Mode, id: string): Promise<WebhookDeliveryRow> {
    const row = await this.get(accountId, mode, id);
    if (row.status !== 'dead') {
      throw new Problem('not_found', `Delivery ${id} is not a dead letter (its status is ${row.status}); GET /v1/events/${row.event_id}/deliveries shows it.`);
    }
    return row;
  }

  async present(rows: WebhookDeliveryRow[]): Promise<Delivery[]> {
    const attempts = rows.length === 0 ? [] : await this.db.selectFrom('webhook_attempts').selectAll()
      .where('delivery_id', 'in', rows.map((r) => r.id)).orderBy('attempt').execute();
    const byDelivery = new Map<string, WebhookAttemptRow[]>();
    for (const a of attempts) {
      const list = byDelivery.get(a.delivery_id) ?? [];
      list.push(a);
      byDelivery.set(a.delivery_id, list);
    }
    return rows.map((r) => ({
      id: r.id,
      object: 'webhook_delivery',
      mode: r.mode,
      event_id: r.event_id,
      event_type: r.event_type,
      resource_id: r.resource_id,
      webhook_id: r.webhook_id,
      url: r.url,
      status: r.status,
      attempt_count: r.attempt_count,
      replay_count: r.replay_count,
      next_attempt_at: r.next_attempt_at,
      last_attempt_at: r.last_attempt_at,
      last_status_code: r.last_status_code,
      last_error: r.last_error,
      succeeded_at: r.succeeded_at,
      dead_lettered_at: r.dead_lettered_at,
      created_at: r.created_at,
      attempts: (byDelivery.get(r.id) ?? []).map((a) => ({
        attempt: a.attempt,
        attempted_at: a.attempted_at,
        status_code: a.status_code,
        latency_ms: a.latency_ms,
        response_excerpt: a.response_excerpt,
        error: a.error,
        next_attempt_at: a.next_attempt_at,
      })),
    }));
  }

  /** Replays one dead-lettered or failed delivery: a new round of attempts, same event id. */
  async replay(accountId: string, mode: Mode, id: string): Promise<WebhookDeliveryRow> {
    return inTransaction(this.db, async (trx) => {
      const row = await this.get(accountId, mode, id, trx);
      assertTransition(row.id, row.status, 'pending');
      return this.requeue(trx, [row]).then((rows) => rows[0]!);
    });
  }

  /** Replays a webhook endpoint's dead and failed deliveries created in [since, until]. */
  async replayMany(accountId: string, mode: Mode, webhookId: string, since: string, until: string | undefined): Promise<{ replayed: number; hasMore: boolean }> {
    return inTransaction(this.db, async (trx) => {
      let q = trx.selectFrom('webhook_deliveries').selectAll()
        .where('account_id', '=', accountId).where('mode', '=', mode).where('webhook_id', '=', webhookId)
        .where('status', 'in', ['dead', 'failed']).where('created_at', '>=', since);
      if (until) q = q.where('created_at', '<=', until);
      const rows = await q.orderBy('id').limit(BULK_REPLAY_LIMIT + 1).execute();
      const batch = rows.slice(0, BULK_REPLAY_LIMIT);
      await this.requeue(trx, batch);
      return { replayed: batch.length, hasMore: rows.length > BULK_REPLAY_LIMIT };
    });
  }

  private async requeue(trx: Trx, rows: WebhookDeliveryRow[]): Promise<WebhookDeliveryRow[]> {
    if (rows.length === 0) return [];
    const now = this.clock.now().toISOString();
    // One UPDATE for the batch; the status guard skips a row that moved meanwhile.
    const ids = rows.map((r) => r.id);
    await trx.updateTable('webhook_deliveries')
      .set((eb) => ({
        status: 'pending',
        round_start: eb.ref('attempt_count'),
        replay_count: eb('replay_count', '+', 1),
        next_attempt_at: now,
        dead_lettered_at: null,
        updated_at: now,
      }))
      .where('id', 'in', ids).where('status', 'in', ['dead', 'failed'])
      .execute();
    const out: WebhookDeliveryRow[] = rows.map((row) => ({
      ...row, status: 'pending', round_start: row.attempt_count, replay_count: row.replay_count + 1,
      next_attempt_at: now, dead_lettered_at: null, updated_at: now,
    }));
    await this.jobs.enqueueMany(trx, out.map((r) => ({
      kind: DELIVER_JOB,
      payload: { d: r.id, k: orderKey(r), n: r.attempt_count } satisfies DeliverPayload,
      opts: DELIVER_JOB_OPTIONS,
    })));
    return out;
  }
}
