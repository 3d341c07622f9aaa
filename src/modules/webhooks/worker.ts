// The delivery job: one attempt of one delivery. It re-reads the delivery (a job can run
// twice after a crash; a stale job finds attempt_count moved on and does nothing), signs the
// envelope, POSTs it, and records the attempt and the next step in one transaction:
// success, a retry job on the schedule, a dead letter after the last attempt, or a stop
// (410 Gone disables the endpoint). Delivery bookkeeping runs on real time: sandbox test
// clocks move events, not the wall clock receivers check signatures against.
import type { Kysely } from 'kysely';
import type { Tables } from '../../store/tables.ts';
import type { Mode } from '../../store/platform-tables.ts';
import type { Clock } from '../../platform/clock.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import { inTransaction } from '../../store/transaction.ts';
import { envelope } from '../../events/emit.ts';
import type { SecretBox } from '../../platform/secret-box.ts';
import type { DefaultSecrets } from './default-secrets.ts';
import { activeSecrets } from './default-secrets.ts';
import { webhookHeaders } from './signing.ts';
import { checkUrlShape, UrlNotAllowed, type UrlPolicyConfig } from './url-policy.ts';
import type { WebhookSender, SendResult } from './sender.ts';
import { decide, type Outcome } from './retry.ts';
import { assertTransition } from './states.ts';
import { KeyedSerializer } from './ordering.ts';
import { DELIVER_JOB, DELIVER_JOB_OPTIONS, orderKey, type DeliverPayload } from './fan-out.ts';
import type { DeliveryStatus, WebhookDeliveryRow } from './tables.ts';
import { NO_LISTENER, type ListenHub } from './listen-hub.ts';
import { prepareFor, prepareInsert, prepareStatement } from '../../store/prepared.ts';
import { webhookDeliveries, webhookDeliverySeconds } from '../../platform/metrics.ts';

/** A listen session nobody has listened to for this long is disabled at its next delivery. */
export const LISTEN_IDLE_SECONDS = 3600;

class StaleAttempt extends Error {}

/** A delivery with its event and endpoint: read once per attempt, so compiled once. */
const loadDelivery = prepareFor((db, id: string) => db.selectFrom('webhook_deliveries as d')
  .innerJoin('events as e', 'e.id', 'd.event_id')
  .leftJoin('webhook_endpoints as w', 'w.id', 'd.webhook_id')
  .selectAll('d')
  .select([
    'e.type as e_type', 'e.created_at as e_created_at', 'e.sequence as e_sequence', 'e.data as e_data',
    'e.account_id as e_account_id', 'e.resource_type as e_resource_type',
    'w.id as w_id', 'w.url as w_url', 'w.enabled as w_enabled', 'w.secret_ciphertext as w_secret',
    'w.previous_secret_ciphertext as w_previous', 'w.previous_secret_expires_at as w_previous_expires_at',
    'w.transport as w_transport', 'w.listener_seen_at as w_listener_seen_at',
  ])
  .where('d.id', '=', id), 1);

/** Every attempt records its outcome with these two statements: compiled once. */
const recordAttemptOutcome = prepareStatement((db, ...a: [DeliveryStatus, number, string | null, string, number | null, string | null, string | null, string | null, string, string, number]) =>
  db.updateTable('webhook_deliveries').set({
    status: a[0], attempt_count: a[1], next_attempt_at: a[2], last_attempt_at: a[3], last_status_code: a[4], last_error: a[5],
    succeeded_at: a[6], dead_lettered_at: a[7], updated_at: a[8],
  }).where('id', '=', a[9]).where('status', '=', 'pending').where('attempt_count', '=', a[10]), 11);
const insertAttempt = prepareInsert('webhook_attempts', ['id', 'delivery_id', 'attempt', 'attempted_at', 'status_code', 'latency_ms', 'response_excerpt', 'error', 'next_attempt_at']);

type LoadedDelivery = NonNullable<Awaited<ReturnType<typeof loadDelivery>>[number]>;

const idleSince = (iso: string, now: Date): number => (now.getTime() - Date.parse(iso)) / 1000;

export interface WorkerDeps {
  db: Kysely<Tables>;
  jobs: JobQueue;
  clock: Clock;
  box: SecretBox;
  defaults: DefaultSecrets;
  sender: WebhookSender;
  listen: ListenHub;
  config: UrlPolicyConfig & { webhookRetrySchedule: number[] };
}

export class DeliveryWorker {
  private readonly order = new KeyedSerializer();

  constructor(private readonly deps: WorkerDeps) {}

  handle = (payload: DeliverPayload): Promise<void> => this.order.run(payload.k, () => this.attempt(payload));

  private async load(id: string) {
    const [row] = await loadDelivery(this.deps.db, id);
    return row;
  }

  private async attempt(payload: DeliverPayload): Promise<void> {
    const row = await this.load(payload.d);
    if (!row || row.status !== 'pending' || row.attempt_count !== payload.n) return;
    const now = this.deps.clock.now();

    if (row.webhook_id !== null && row.w_id === null) return this.stop(row, 'the webhook endpoint was deleted');
    if (row.webhook_id !== null && row.w_enabled !== 1) return this.stop(row, 'the webhook endpoint is disabled');

    // A listen session is delivered down its event stream (listen-hub.ts), signed with the
    // mode's default secret so a developer's receiver keeps one secret across sessions.
    const listen = row.w_transport === 'listen';
    let url: URL | null = null;
    if (!listen) {
      try {
        url = checkUrlShape(row.w_url ?? row.url, row.mode, this.deps.config);
      } catch (err) {
        if (!(err instanceof UrlNotAllowed)) throw err;
        return this.record(row, { statusCode: null, latencyMs: 0, excerpt: null, error: `webhook URL not allowed: ${err.message}`, retryAfterSeconds: null }, { kind: 'gone' }, false, now);
      }
    }

    let signed: { body: string; headers: Record<string, string> };
    try {
      signed = await this.sign(row, listen, now);
    } catch (err) {
      // A secret this server cannot open (a key changed under the database, a damaged row) is
      // an attempt that failed, on the customer's retry schedule and into dead letters, where
      // it can be replayed once fixed: thrown, it would use up the job's own few attempts and
      // leave the delivery pending with nothing left to send it.
      const error = `could not sign the delivery: ${err instanceof Error ? err.message : String(err)}`;
      const result: SendResult = { statusCode: null, latencyMs: 0, excerpt: null, error, retryAfterSeconds: null };
      return this.record(row, result, this.outcomeOf(row, result), false, now);
    }
    const { body, headers } = signed;
    const result = url
      ? await this.deps.sender.send(url, row.mode as Mode, headers, body, () => this.deps.clock.now().getTime())
      : await this.deps.listen.send({
        webhookId: row.w_id!, deliveryId: row.id, eventId: row.event_id, eventType: row.e_type, attempt: row.attempt_count + 1, headers, body,
      });
    webhookDeliverySeconds.observe(result.latencyMs / 1000);
    if (listen && result.error === NO_LISTENER && idleSince(row.w_listener_seen_at ?? row.created_at, now) > LISTEN_IDLE_SECONDS) {
      await this.record(row, result, { kind: 'gone' }, false, now);
      await this.deps.db.updateTable('webhook_endpoints').set({ enabled: 0, disabled_reason: 'listener_gone', updated_at: now.toISOString() })
        .where('id', '=', row.w_id!).execute();
      return;
    }
    const outcome = this.outcomeOf(row, result);
    await this.record(row, result, outcome, outcome.kind === 'gone' && row.w_id !== null, now);
  }

  /** The signed envelope: the endpoint's secrets (both during a rotation), or the mode's default for a listen session. */
  private async sign(row: LoadedDelivery, listen: boolean, now: Date): Promise<{ body: string; headers: Record<string, string> }> {
    const secrets = row.w_id !== null && !listen
      ? activeSecrets(this.deps.box, { secret_ciphertext: row.w_secret!, previous_secret_ciphertext: row.w_previous, previous_secret_expires_at: row.w_previous_expires_at }, now.toISOString())
      : activeSecrets(this.deps.box, await this.deps.defaults.ensure(row.account_id, row.mode), now.toISOString());
    const body = JSON.stringify(envelope({
      id: row.event_id, account_id: row.e_account_id, mode: row.mode, type: row.e_type, resource_type: row.e_resource_type,
      resource_id: row.resource_id, sequence: row.e_sequence, data: row.e_data, created_at: row.e_created_at,
    }));
    return { body, headers: webhookHeaders(row.event_id, Math.floor(now.getTime() / 1000), body, secrets) };
  }

  private outcomeOf(row: WebhookDeliveryRow, result: SendResult): Outcome {
    return decide({
      statusCode: result.statusCode,
      retryAfterSeconds: result.retryAfterSeconds,
      attemptInRound: row.attempt_count + 1 - row.round_start,
      schedule: this.deps.config.webhookRetrySchedule,
    });
  }

  /** Ends a delivery without an attempt (its endpoint is gone or disabled). */
  private async stop(row: WebhookDeliveryRow, why: string): Promise<void> {
    const now = this.deps.clock.now().toISOString();
    assertTransition(row.id, row.status, 'failed');
    const stopped = await this.deps.db.updateTable('webhook_deliveries')
      .set({ status: 'failed', last_error: why, next_attempt_at: null, updated_at: now })
      .where('id', '=', row.id).where('status', '=', 'pending').where('attempt_count', '=', row.attempt_count)
      .executeTakeFirst();
    if (Number(stopped.numUpdatedRows) === 1) webhookDeliveries.inc({ outcome: 'failed' });
  }

  private async record(row: WebhookDeliveryRow, result: SendResult, outcome: Outcome, disableEndpoint: boolean, startedAt: Date): Promise<void> {
    const now = this.deps.clock.now();
    const nowIso = now.toISOString();
    const status: DeliveryStatus = outcome.kind === 'succeeded' ? 'succeeded' : outcome.kind === 'retry' ? 'pending' : outcome.kind === 'dead' ? 'dead' : 'failed';
    assertTransition(row.id, row.status, status);
    const nextAt = outcome.kind === 'retry' ? new Date(now.getTime() + outcome.delaySeconds * 1000).toISOString() : null;
    const attempt = row.attempt_count + 1;
    const error = result.error ?? (outcome.kind === 'gone' && result.statusCode === 410 ? 'the receiver answered 410 Gone; the endpoint was disabled' : null);
    try {
      await inTransaction(this.deps.db, async (trx) => {
        const updated = await recordAttemptOutcome(trx, status, attempt, nextAt, startedAt.toISOString(), result.statusCode, error,
          status === 'succeeded' ? nowIso : null, status === 'dead' ? nowIso : null, nowIso, row.id, row.attempt_count);
        // Another worker recorded this attempt first (an expired lease on PostgreSQL).
        if (Number(updated.numAffectedRows ?? 0n) !== 1) throw new StaleAttempt();
        trx.afterCommit(() => webhookDeliveries.inc({ outcome: outcome.kind === 'gone' ? 'failed' : outcome.kind }));
        await insertAttempt(trx, {
          id: `${row.id}.${attempt}`, // deterministic: one row per attempt number
          delivery_id: row.id,
          attempt,
          attempted_at: startedAt.toISOString(),
          status_code: result.statusCode,
          latency_ms: result.latencyMs,
          response_excerpt: result.excerpt,
          error,
          next_attempt_at: nextAt,
        });
        if (outcome.kind === 'retry') {
          await this.deps.jobs.enqueue(trx, DELIVER_JOB, { d: row.id, k: orderKey(row), n: attempt } satisfies DeliverPayload, { ...DELIVER_JOB_OPTIONS, delaySeconds: outcome.delaySeconds });
        }
        if (disableEndpoint && row.webhook_id) {
          await trx.updateTable('webhook_endpoints').set({ enabled: 0, disabled_reason: 'gone', updated_at: nowIso })
            .where('id', '=', row.webhook_id).execute();
        }
      });
    } catch (err) {
      if (!(err instanceof StaleAttempt)) throw err;
    }
  }
}
