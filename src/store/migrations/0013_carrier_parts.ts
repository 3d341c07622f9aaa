import type { Kysely } from 'kysely';

// Live messaging bookkeeping owned by the carriers (src/carriers/live-messaging/):
//  - carrier_parts: each part of an outbound message a link accepted, with the carrier's id
//    for it (the SMSC's message_id) and that part's outcome; a part row commits as soon as
//    the carrier accepted it, so a retried submission never sends that part again.
//  - carrier_early_receipts: receipts for carrier ids we have not committed yet (a receipt
//    can overtake submit_sm_resp, or our commit); matched when the part commits.
//  - carrier_inbound_parts: parts of concatenated inbound messages until all have arrived.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createTable('carrier_parts')
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('part', 'integer', (c) => c.notNull())
    .addColumn('parts', 'integer', (c) => c.notNull())
    .addColumn('link', 'text', (c) => c.notNull())
    .addColumn('carrier_message_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('state', 'text')
    .addColumn('error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('carrier_parts_pk', ['message_id', 'part'])
    .execute();
  await db.schema.createIndex('carrier_parts_by_carrier_id').on('carrier_parts').columns(['link', 'carrier_message_id']).execute();

  await db.schema.createTable('carrier_early_receipts')
    .addColumn('link', 'text', (c) => c.notNull())
    .addColumn('carrier_message_id', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('received_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('carrier_early_receipts_pk', ['link', 'carrier_message_id'])
    .execute();

  await db.schema.createTable('carrier_inbound_parts')
    .addColumn('link', 'text', (c) => c.notNull())
    .addColumn('group_key', 'text', (c) => c.notNull())
    .addColumn('sequence', 'integer', (c) => c.notNull())
    .addColumn('total', 'integer', (c) => c.notNull())
    .addColumn('data_coding', 'integer', (c) => c.notNull())
    .addColumn('octets', 'text', (c) => c.notNull())
    .addColumn('received_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('carrier_inbound_parts_pk', ['link', 'group_key', 'sequence'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('carrier_inbound_parts').execute();
  await db.schema.dropTable('carrier_early_receipts').execute();
  await db.schema.dropTable('carrier_parts').execute();
}
