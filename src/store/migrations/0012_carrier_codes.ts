import type { Kysely } from 'kysely';

// The carrier's own code for why a call ended or a message failed (a SIP status such as
// "486", an SMPP command_status), shown as `failure.carrier_code`. Null on the simulator
// and on rows stored before these columns. And the subscription URL a call without a
// webhook_url of its own shows as its `webhook_url` (chosen when the call is created).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('calls').addColumn('carrier_code', 'text').execute();
  await db.schema.alterTable('calls').addColumn('subscription_webhook_url', 'text').execute();
  await db.schema.alterTable('messages').addColumn('carrier_code', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('messages').dropColumn('carrier_code').execute();
  await db.schema.alterTable('calls').dropColumn('subscription_webhook_url').execute();
  await db.schema.alterTable('calls').dropColumn('carrier_code').execute();
}
