import type { Kysely } from 'kysely';

// Calls and recordings. Every list filter has an index that ends in `id`, so a filtered,
// cursor-paged list is one index range scan (newest first).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('calls')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('from_number', 'text', (c) => c.notNull())
    .addColumn('to_number', 'text', (c) => c.notNull())
    .addColumn('record', 'integer', (c) => c.notNull())
    .addColumn('webhook_url', 'text')
    .addColumn('timeout', 'integer', (c) => c.notNull())
    .addColumn('time_limit', 'integer', (c) => c.notNull())
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('timestamps', 'text', (c) => c.notNull())
    .addColumn('answered_at', 'text')
    .addColumn('ended_at', 'text')
    .addColumn('duration_seconds', 'integer')
    .addColumn('hangup_cause', 'text')
    .addColumn('hangup_source', 'text')
    .addColumn('transfers', 'text', (c) => c.notNull())
    .addColumn('carrier', 'text', (c) => c.notNull())
    .addColumn('carrier_state', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('calls_account').on('calls').columns(['account_id', 'mode', 'id']).execute();
  await db.schema.createIndex('calls_status').on('calls').columns(['account_id', 'mode', 'status', 'id']).execute();
  await db.schema.createIndex('calls_from').on('calls').columns(['account_id', 'mode', 'from_number', 'id']).execute();
  await db.schema.createIndex('calls_to').on('calls').columns(['account_id', 'mode', 'to_number', 'id']).execute();
  await db.schema.createIndex('calls_created').on('calls').columns(['account_id', 'mode', 'created_at']).execute();

  await db.schema
    .createTable('recordings')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('call_id', 'text', (c) => c.notNull().references('calls.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('channels', 'integer', (c) => c.notNull())
    .addColumn('sample_rate', 'integer', (c) => c.notNull())
    .addColumn('spans', 'text', (c) => c.notNull())
    .addColumn('timestamps', 'text', (c) => c.notNull())
    .addColumn('duration_ms', 'integer')
    .addColumn('size_bytes', 'integer')
    .addColumn('transcript', 'text')
    .addColumn('media_path', 'text')
    .addColumn('redacted', 'integer', (c) => c.notNull())
    .addColumn('redactions', 'text', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('recordings_account').on('recordings').columns(['account_id', 'mode', 'id']).execute();
  await db.schema.createIndex('recordings_call').on('recordings').columns(['call_id', 'id']).execute();
  await db.schema.createIndex('recordings_status').on('recordings').columns(['account_id', 'mode', 'status', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('recordings').execute();
  await db.schema.dropTable('calls').execute();
}
