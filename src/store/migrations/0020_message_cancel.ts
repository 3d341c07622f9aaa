import type { Kysely } from 'kysely';

// Canceling a message not yet handed to its carrier (POST /v1/messages/{id}/cancel).
// `canceled_at`: when it was canceled. `handoff_until`: a live link that hands a still-queued
// message to a provider over HTTP (Twilio, the Graph API) claims it until this time first, in
// its own transaction; a cancel meanwhile is refused, so a message is never both canceled and
// sent. The claim outlives the provider request's timeout, and lapses on its own after a crash.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('messages').addColumn('canceled_at', 'text').execute();
  await db.schema.alterTable('messages').addColumn('handoff_until', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('messages').dropColumn('handoff_until').execute();
  await db.schema.alterTable('messages').dropColumn('canceled_at').execute();
}
