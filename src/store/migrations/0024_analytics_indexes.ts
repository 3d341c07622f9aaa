import type { Kysely } from 'kysely';

// Analytics and usage read a window of an account's rows by creation time. Calls, messages and
// AI conversations already have (account_id, mode, created_at); without these two, the
// webhook and recording figures would scan every delivery and recording the account ever had.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('webhook_deliveries_created').on('webhook_deliveries').columns(['account_id', 'mode', 'created_at']).execute();
  await db.schema.createIndex('recordings_created').on('recordings').columns(['account_id', 'mode', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('recordings_created').execute();
  await db.schema.dropIndex('webhook_deliveries_created').execute();
}
