// Listen sessions (`switchboard listen`, like `stripe listen`): a webhook endpoint whose
// transport is an event stream the listener holds open instead of an HTTP URL we POST to. It
// is an ordinary subscription otherwise (event patterns, deliveries, attempts, retries, dead
// letters, replay, DELETE), signed with the mode's default secret so a developer's local
// receiver keeps one secret from one session to the next. listen-hub.ts carries the stream.
import type { Kysely } from 'kysely';
import type { Tables } from '../../store/tables.ts';
import type { Mode } from '../../store/platform-tables.ts';
import type { Clock } from '../../platform/clock.ts';
import { newId } from '../../platform/ids.ts';
import { invalidField, notFound } from '../../platform/problems.ts';
import type { SecretBox } from '../../platform/secret-box.ts';
import type { PublicUrl } from '../../platform/public-url.ts';
import type { DefaultSecrets } from './default-secrets.ts';
import { normaliseEventPatterns } from './matching.ts';
import type { Caller } from './service.ts';
import type { WebhookEndpointRow } from './tables.ts';

export interface ListenSessionInput {
  forward_to: string;
  events?: string[] | undefined;
  description?: string | null | undefined;
}

/** Its stream and results URLs are absolute, on the public URL, like every URL the API returns. */
export function presentSession(row: WebhookEndpointRow, secret: string, publicUrl: PublicUrl) {
  return {
    id: row.id,
    object: 'webhook_listen_session' as const,
    mode: row.mode,
    events: JSON.parse(row.events) as string[],
    forward_to: row.url,
    description: row.description,
    secret,
    stream_url: publicUrl.to(`/v1/webhooks/${row.id}/listen`),
    results_url: publicUrl.to(`/v1/webhooks/${row.id}/listen/results`),
    created_at: row.created_at,
  };
}

export class ListenService {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly deps: { box: SecretBox; defaults: DefaultSecrets; clock: Clock },
  ) {}

  async create(caller: Caller, input: ListenSessionInput): Promise<{ row: WebhookEndpointRow; secret: string }> {
    // The server never connects to forward_to (the listener does, on its own machine), so
    // it only has to be an http(s) URL, not one our delivery URL policy allows.
    let forward: URL;
    try {
      forward = new URL(input.forward_to);
    } catch {
      throw invalidField('forward_to', 'is not a URL; give the local receiver, e.g. http://localhost:3000/hooks.', 'invalid_format');
    }
    if (forward.protocol !== 'http:' && forward.protocol !== 'https:') throw invalidField('forward_to', 'must be an http or https URL.', 'invalid_format');
    const defaults = await this.deps.defaults.ensure(caller.accountId, caller.mode);
    const now = caller.clock.now().toISOString();
    const row: WebhookEndpointRow = {
      id: newId('webhook'),
      account_id: caller.accountId,
      mode: caller.mode,
      url: input.forward_to,
      description: input.description ?? 'switchboard listen',
      events: JSON.stringify(normaliseEventPatterns(input.events)),
      enabled: 1,
      disabled_reason: null,
      // Not used for signing (the default secret signs); kept so the row is like any endpoint's.
      secret_ciphertext: defaults.secret_ciphertext,
      previous_secret_ciphertext: null,
      previous_secret_expires_at: null,
      transport: 'listen',
      listener_seen_at: this.deps.clock.now().toISOString(), // real time, as the worker measures idleness
      created_at: now,
      updated_at: now,
    };
    await this.db.insertInto('webhook_endpoints').values(row).execute();
    return { row, secret: this.deps.box.open(defaults.secret_ciphertext) };
  }

  /** The listen session `id` of this account and mode; a 404 for anything else, an HTTP endpoint included. */
  async session(accountId: string, mode: Mode, id: string): Promise<WebhookEndpointRow> {
    const row = await this.db.selectFrom('webhook_endpoints').selectAll()
      .where('id', '=', id).where('account_id', '=', accountId).where('mode', '=', mode).where('transport', '=', 'listen')
      .executeTakeFirst();
    if (!row) throw notFound('listen session', id);
    return row;
  }

  /** Stamps a listener connecting or going away (an idle session is disabled by the worker). */
  async seen(id: string): Promise<void> {
    await this.db.updateTable('webhook_endpoints').set({ listener_seen_at: this.deps.clock.now().toISOString() }).where('id', '=', id).execute();
  }
}
