import type { Kysely } from 'kysely';

// Why a message is still waiting where it is (`queued` while its live link cannot bind, or
// `sending` while a dropped link reconnects): a sentence for the customer, cleared by the
// next status change. Null on the simulator and when nothing holds the message up.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('messages').addColumn('status_reason', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('messages').dropColumn('status_reason').execute();
}
