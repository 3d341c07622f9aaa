// The account's per-mode default signing secret: what signs deliveries to a resource's own
// webhook_url (calls and messages). Created on first use, rotatable with a grace period
// like an endpoint's secret.
import type { Kysely } from 'kysely';
import type { Tables } from '../../store/tables.ts';
import type { Mode } from '../../store/platform-tables.ts';
import type { Clock } from '../../platform/clock.ts';
import { inTransaction } from '../../store/transaction.ts';
import type { SecretBox } from '../../platform/secret-box.ts';
import { newSigningSecret } from './signing.ts';
import type { WebhookDefaultSecretRow } from './tables.ts';

/** The secrets that sign now: the current one, plus the previous one inside its grace period. */
export function activeSecrets(
  box: SecretBox,
  row: { secret_ciphertext: string; previous_secret_ciphertext: string | null; previous_secret_expires_at: string | null },
  nowIso: string,
): string[] {
  const secrets = [box.open(row.secret_ciphertext)];
  if (row.previous_secret_ciphertext && row.previous_secret_expires_at && row.previous_secret_expires_at > nowIso) {
    secrets.push(box.open(row.previous_secret_ciphertext));
  }
  return secrets;
}

export class DefaultSecrets {
  constructor(private readonly db: Kysely<Tables>, private readonly box: SecretBox, private readonly clock: Clock) {}

  async ensure(accountId: string, mode: Mode): Promise<WebhookDefaultSecretRow> {
    const existing = await this.find(accountId, mode);
    if (existing) return existing;
    const now = this.clock.now().toISOString();
    // Two first uses may race (two workers, or a worker and GET default_secret): the
    // primary key keeps one, and both read the winner.
    await this.db.insertInto('webhook_default_secrets').values({
      account_id: accountId, mode, secret_ciphertext: this.box.seal(newSigningSecret()),
      previous_secret_ciphertext: null, previous_secret_expires_at: null, created_at: now, updated_at: now,
    }).onConflict((oc) => oc.columns(['account_id', 'mode']).doNothing()).execute();
    return (await this.find(accountId, mode))!;
  }

  async rotate(accountId: string, mode: Mode, graceSeconds: number): Promise<WebhookDefaultSecretRow> {
    await this.ensure(accountId, mode);
    return inTransaction(this.db, async (trx) => {
      const current = await trx.selectFrom('webhook_default_secrets').selectAll()
        .where('account_id', '=', accountId).where('mode', '=', mode).executeTakeFirstOrThrow();
      const now = this.clock.now();
      const next = {
        secret_ciphertext: this.box.seal(newSigningSecret()),
        previous_secret_ciphertext: current.secret_ciphertext,
        previous_secret_expires_at: new Date(now.getTime() + graceSeconds * 1000).toISOString(),
        updated_at: now.toISOString(),
      };
      await trx.updateTable('webhook_default_secrets').set(next).where('account_id', '=', accountId).where('mode', '=', mode).execute();
      return { ...current, ...next };
    });
  }

  private find(accountId: string, mode: Mode): Promise<WebhookDefaultSecretRow | undefined> {
    return this.db.selectFrom('webhook_default_secrets').selectAll()
      .where('account_id', '=', accountId).where('mode', '=', mode).executeTakeFirst();
  }
}
