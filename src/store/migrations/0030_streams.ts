import type { Kysely } from 'kysely';

// Media streams of calls (src/modules/streams). Listed per call, newest first (the id is
// time-sortable); the open streams of a call are found by call and status (a hang-up stops
// them, and one bidirectional stream runs per call).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createTable('call_streams')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('call_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('track', 'text', (c) => c.notNull())
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('bidirectional', 'integer', (c) => c.notNull())
    .addColumn('parameters', 'text', (c) => c.notNull())
    .addColumn('status_url', 'text')
    .addColumn('flow_op', 'text')
    .addColumn('reason', 'text')
    .addColumn('error', 'text')
    .addColumn('dropped_frames', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text')
    .addColumn('ended_at', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('call_streams_call').on('call_streams').columns(['call_id', 'status']).execute();
  await db.schema.createIndex('call_streams_call_id').on('call_streams').columns(['call_id', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('call_streams').execute();
}
