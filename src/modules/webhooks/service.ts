// Webhook subscriptions (endpoints) per account and mode: create (the secret is shown once),
// list, get, update, delete, secret rotation with a grace period, the per-mode default
// secret, and the test event. Deliveries and dead letters live in deliveries.ts.
import { fetchPage, type PageInput } from '../../platform/pagination.ts';
import type { Kysely } from 'kysely';
import type { Tables } from '../../store/tables.ts';
import type { EventRow, Mode } from '../../store/platform-tables.ts';
import type { Clock } from '../../platform/clock.ts';
import type { EventEmitter } from '../../events/emit.ts';
import { newId } from '../../platform/ids.ts';
import { Problem, notFound } from '../../platform/problems.ts';
import { inTransaction } from '../../store/transaction.ts';
import type { SecretBox } from '../../platform/secret-box.ts';
import { newSigningSecret } from './signing.ts';
import { assertWebhookUrlAllowed, type UrlPolicyConfig } from './url-policy.ts';
import { normaliseEventPatterns } from './matching.ts';
import type { DefaultSecrets } from './default-secrets.ts';
import type { DeliveryService } from './deliveries.ts';
import type { WebhookEndpointRow, WebhookTransport } from './tables.ts';

export const DEFAULT_SECRET_GRACE_SECONDS = 24 * 60 * 60;

export interface WebhookEndpoint {
  id: string;
  object: 'webhook_endpoint';
  mode: Mode;
  url: string;
  description: string | null;
  events: string[];
  enabled: boolean;
  disabled_reason: string | null;
  previous_secret_expires_at: string | null;
  transport: WebhookTransport;
  created_at: string;
  updated_at: string;
}

export function presentEndpoint(row: WebhookEndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    object: 'webhook_endpoint',
    mode: row.mode,
    url: row.url,
    description: row.description,
    events: JSON.parse(row.events),
    enabled: row.enabled === 1,
    disabled_reason: row.disabled_reason,
    previous_secret_expires_at: row.previous_secret_expires_at,
    transport: row.transport,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export interface Caller {
  accountId: string;
  mode: Mode;
  /** The caller's clock (sandbox test clock included) for resource timestamps. */
  clock: Clock;
}

export interface EndpointInput {
  url?: string | undefined;
  events?: string[] | undefined;
  description?: string | null | undefined;
  enabled?: boolean | undefined;
}

export class WebhookService {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly deps: {
      box: SecretBox;
      defaults: DefaultSecrets;
      events: EventEmitter;
      /** Real time: signing and secret grace periods follow the wall clock receivers use. */
      clock: Clock;
      config: UrlPolicyConfig;
    },
    readonly deliveries: DeliveryService,
  ) {}

  async create(caller: Caller, input: EndpointInput & { url: string }): Promise<{ row: WebhookEndpointRow; secret: string }> {
    await assertWebhookUrlAllowed(input.url, caller.mode, this.deps.config);
    const secret = newSigningSecret();
    const now = caller.clock.now().toISOString();
    const row: WebhookEndpointRow = {
      id: newId('webhook'),
      account_id: caller.accountId,
      mode: caller.mode,
      url: input.url,
      description: input.description ?? null,
      events: JSON.stringify(normaliseEventPatterns(input.events)),
      enabled: input.enabled === false ? 0 : 1,
      disabled_reason: null,
      secret_ciphertext: this.deps.box.seal(secret),
      previous_secret_ciphertext: null,
      previous_secret_expires_at: null,
      transport: 'http',
      listener_seen_at: null,
      created_at: now,
      updated_at: now,
    };
    await this.db.insertInto('webhook_endpoints').values(row).execute();
    return { row, secret };
  }

  /** `db` is the transaction when called inside one (on SQLite another connection would wait forever). */
  async get(accountId: string, mode: Mode, id: string, db: Kysely<Tables> = this.db): Promise<WebhookEndpointRow> {
    const row = await db.selectFrom('webhook_endpoints').selectAll()
      .where('id', '=', id).where('account_id', '=', accountId).where('mode', '=', mode).executeTakeFirst();
    if (!row) throw notFound('webhook endpoint', id);
    return row;
  }

  async list(accountId: string, mode: Mode, page: PageInput): Promise<WebhookEndpointRow[]> {
    let q = this.db.selectFrom('webhook_endpoints').selectAll().where('account_id', '=', accountId).where('mode', '=', mode);
    return fetchPage(q, page);
  }

  async update(caller: Caller, id: string, patch: EndpointInput): Promise<WebhookEndpointRow> {
    const row = await this.get(caller.accountId, caller.mode, id);
    const set: Partial<WebhookEndpointRow> = {};
    if (patch.url !== undefined) {
      await assertWebhookUrlAllowed(patch.url, caller.mode, this.deps.config);
      set.url = patch.url;
    }
    if (patch.events !== undefined) set.events = JSON.stringify(normaliseEventPatterns(patch.events));
    if (patch.description !== undefined) set.description = patch.description;
    if (patch.enabled !== undefined) {
      set.enabled = patch.enabled ? 1 : 0;
      set.disabled_reason = null; // re-enabling after a 410, or disabled by the user
    }
    if (Object.keys(set).length === 0) return row;
    set.updated_at = caller.clock.now().toISOString();
    await this.db.updateTable('webhook_endpoints').set(set).where('id', '=', id).execute();
    return { ...row, ...set };
  }

  /** Deleting keeps the delivery history; pending deliveries to it end as failed. */
  async delete(accountId: string, mode: Mode, id: string): Promise<void> {
    await this.get(accountId, mode, id);
    await this.db.deleteFrom('webhook_endpoints').where('id', '=', id).execute();
  }

  /** A new secret now; the old one keeps signing (a second signature) for `graceSeconds`. */
  async rotateSecret(caller: Caller, id: string, graceSeconds = DEFAULT_SECRET_GRACE_SECONDS): Promise<{ row: WebhookEndpointRow; secret: string }> {
    return inTransaction(this.db, async (trx) => {
      const row = await this.get(caller.accountId, caller.mode, id, trx);
      const secret = newSigningSecret();
      const set = {
        secret_ciphertext: this.deps.box.seal(secret),
        previous_secret_ciphertext: graceSeconds > 0 ? row.secret_ciphertext : null,
        previous_secret_expires_at: graceSeconds > 0 ? new Date(this.deps.clock.now().getTime() + graceSeconds * 1000).toISOString() : null,
        updated_at: caller.clock.now().toISOString(),
      };
      await trx.updateTable('webhook_endpoints').set(set).where('id', '=', id).execute();
      return { row: { ...row, ...set }, secret };
    });
  }

  async defaultSecret(accountId: string, mode: Mode) {
    const row = await this.deps.defaults.ensure(accountId, mode);
    return { row, secret: this.deps.box.open(row.secret_ciphertext) };
  }

  async rotateDefaultSecret(accountId: string, mode: Mode, graceSeconds = DEFAULT_SECRET_GRACE_SECONDS) {
    const row = await this.deps.defaults.rotate(accountId, mode, graceSeconds);
    return { row, secret: this.deps.box.open(row.secret_ciphertext) };
  }

  /** Emits a `webhook.test` event that is delivered to this endpoint only. */
  async sendTest(caller: Caller, id: string): Promise<EventRow> {
    return inTransaction(this.db, async (trx) => {
      const row = await this.get(caller.accountId, caller.mode, id, trx);
      if (row.enabled !== 1) throw new Problem('webhook_disabled', `Webhook endpoint ${id} is disabled; enable it with PATCH {"enabled": true} first.`);
      return this.deps.events.emit(trx, {
        accountId: caller.accountId,
        mode: caller.mode,
        type: 'webhook.test',
        resourceType: 'webhook_endpoint',
        resourceId: row.id,
        object: { id: row.id, object: 'webhook_test', url: row.url, message: 'A test event from Switchboard: your endpoint receives and verifies webhooks.' },
        clock: caller.clock,
      });
    });
  }
}
