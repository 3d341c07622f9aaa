// The fan-out half of the transactional outbox: for one event, in the emitting transaction,
// one SELECT of the account's enabled endpoints in that mode (one per transaction, see
// enabled-endpoints.ts), one INSERT of the delivery rows and one INSERT of their jobs. The worker is woken after commit (JobQueue).
// `webhook.test` goes only to the endpoint it tests; other events go to every matching
// subscription of the same account AND mode, plus the resource's own webhook_url.
import type { FanOut } from '../../events/emit.ts';
import type { EnqueueOptions, JobQueue } from '../../jobs/queue.ts';
import type { Clock } from '../../platform/clock.ts';
import { newId } from '../../platform/ids.ts';
import type { WebhookDeliveryRow } from './tables.ts';
import { matches, subscribedTypes } from './matching.ts';
import { prepareInsert } from '../../store/prepared.ts';
import { deferInsert } from '../../store/batch-scope.ts';
import { enabledEndpointsIn } from './enabled-endpoints.ts';

export const DELIVER_JOB = 'webhook.deliver';

/**
 * Every delivery job runs in the webhooks lane: its own claim loop and slots, so a delivery
 * never waits behind carrier jobs (src/jobs/queue.ts).
 */
export const DELIVER_JOB_OPTIONS = { lane: 'webhooks' } as const satisfies EnqueueOptions;

/** The job payload: delivery id, ordering key, and attempt_count the job expects (stale jobs skip). */
export interface DeliverPayload {
  d: string;
  k: string;
  n: number;
}

/**
 * Deliveries with the same key are attempted one after another, in emit order: one key per
 * (target, resource). Test events order nothing, so each has its own key.
 */
export function orderKey(row: Pick<WebhookDeliveryRow, 'webhook_id' | 'url' | 'resource_id' | 'event_type' | 'event_id'>): string {
  if (row.event_type === 'webhook.test') return row.event_id;
  return `${row.webhook_id ?? row.url}|${row.resource_id}`;
}

/** Most events have one target: that delivery's insert is compiled once. */
const insertDelivery = prepareInsert('webhook_deliveries', [
  'id', 'account_id', 'mode', 'event_id', 'event_type', 'resource_id', 'webhook_id', 'url', 'status', 'attempt_count', 'round_start',
  'next_attempt_at', 'last_attempt_at', 'last_status_code', 'last_error', 'succeeded_at', 'dead_lettered_at', 'replay_count', 'created_at', 'updated_at',
]);

export function createFanOut(deps: { jobs: JobQueue; clock: Clock }): FanOut {
  return async (trx, event, { webhookUrl }) => {
    const endpoints = event.type === 'webhook.test'
      ? await trx.selectFrom('webhook_endpoints').select(['id', 'url', 'events'])
        .where('account_id', '=', event.account_id).where('mode', '=', event.mode).where('id', '=', event.resource_id).execute()
      // Read once per transaction: a ledger batch emits dozens of events of one account.
      : await enabledEndpointsIn(trx, event.account_id, event.mode);
    const targets: Array<{ webhook_id: string | null; url: string }> = endpoints
      .filter((e) => event.type === 'webhook.test' || matches(subscribedTypes(e.events), event.type))
      .map((e) => ({ webhook_id: e.id, url: e.url }));
    if (webhookUrl && event.type !== 'webhook.test') targets.push({ webhook_id: null, url: webhookUrl });
    if (targets.length === 0) return;

    const now = deps.clock.now().toISOString();
    const rows: WebhookDeliveryRow[] = targets.map((t) => ({
      id: newId('delivery'),
      account_id: event.account_id,
      mode: event.mode,
      event_id: event.id,
      event_type: event.type,
      resource_id: event.resource_id,
      webhook_id: t.webhook_id,
      url: t.url,
      status: 'pending',
      attempt_count: 0,
      round_start: 0,
      next_attempt_at: now,
      last_attempt_at: null,
      last_status_code: null,
      last_error: null,
      succeeded_at: null,
      dead_lettered_at: null,
      replay_count: 0,
      created_at: now,
      updated_at: now,
    }));
    // In a ledger batch the rows go in with the batch's others, in one INSERT before it commits.
    if (!deferInsert(trx, 'webhook_deliveries', rows)) {
      if (rows.length === 1) await insertDelivery(trx, rows[0]!);
      else await trx.insertInto('webhook_deliveries').values(rows).execute();
    }
    await deps.jobs.enqueueMany(trx, rows.map((r) => ({
      kind: DELIVER_JOB,
      payload: { d: r.id, k: orderKey(r), n: 0 } satisfies DeliverPayload,
      opts: DELIVER_JOB_OPTIONS,
    })));
  };
}
