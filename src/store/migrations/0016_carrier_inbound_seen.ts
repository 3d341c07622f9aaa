import type { Kysely } from 'kysely';

// Inbound messages a live link has recorded, by the carrier's own id (a WhatsApp wamid):
// Meta redelivers a webhook it thinks we missed, and the redelivery must not become a
// second message. Written in the transaction that records the message.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createTable('carrier_inbound_seen')
    .addColumn('link', 'text', (c) => c.notNull())
    .addColumn('carrier_message_id', 'text', (c) => c.notNull())
    .addColumn('received_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('carrier_inbound_seen_pk', ['link', 'carrier_message_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('carrier_inbound_seen').execute();
}
