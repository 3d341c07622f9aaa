import { sql, type Kysely } from 'kysely';

// Call queues (docs/contact-center.md, "Queues"): a queue per account, mode and name, and one
// row per time a call waited in one. A member row outlives its wait (status left or bridged,
// with why and how long) so a queue's estimated wait can be read from the callers it served.
// Dialect-neutral DDL.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('queues')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('max_size', 'integer', (c) => c.notNull())
    .addColumn('max_wait_seconds', 'integer')
    .addColumn('wait_flow', 'text')
    .addColumn('wait_url', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('queues_name').on('queues').columns(['account_id', 'mode', 'name']).unique().execute();

  await db.schema
    .createTable('queue_members')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('queue_id', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('call_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('priority', 'integer', (c) => c.notNull())
    .addColumn('enqueued_at', 'text', (c) => c.notNull())
    .addColumn('max_wait_seconds', 'integer')
    .addColumn('flow_op', 'text', (c) => c.notNull())
    .addColumn('wait_flow', 'text', (c) => c.notNull())
    .addColumn('wait_step', 'integer', (c) => c.notNull())
    .addColumn('wait_url', 'text')
    .addColumn('wait_op', 'text')
    .addColumn('peer_call_id', 'text')
    .addColumn('peer_flow_op', 'text')
    .addColumn('dequeued_to', 'text')
    .addColumn('reason', 'text')
    .addColumn('wait_seconds', 'real')
    .addColumn('left_at', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // The next caller is the first waiting member in (priority, enqueued_at, id) order.
  await db.schema.createIndex('queue_members_next').on('queue_members').columns(['queue_id', 'status', 'priority', 'enqueued_at', 'id']).execute();
  await db.schema.createIndex('queue_members_call').on('queue_members').columns(['call_id', 'status']).execute();
  // One call waits in at most one place at a time.
  await db.schema.createIndex('queue_members_one_wait').on('queue_members').column('call_id').unique()
    .where(sql.ref('status'), 'in', sql`('waiting', 'reserved', 'bridged')`).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('queue_members').execute();
  await db.schema.dropTable('queues').execute();
}
