import { sql, type Kysely } from 'kysely';

// A worker's status history (docs/contact-center.md, "Worker statistics"): one row per status a
// worker entered and per offer it missed, written in the transaction that moved it, so a worker's
// talk, wrap-up and idle time can be summed from durable records and every node answers the
// same. `seq` numbers a worker's rows in the order they happened: several can share a timestamp
// (a miss and the move to offline it causes), and nodes' clocks may differ by a little.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('worker_status_history')
    .addColumn('worker_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    // 'status': the worker entered `status`; 'missed': an offer rang out (`status` is unchanged).
    .addColumn('change', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    // busy: the call the worker is on; missed: the call that rang it.
    .addColumn('call_id', 'text')
    // busy: the waiting caller that call was offered (it was handled if the two were bridged).
    .addColumn('caller_call_id', 'text')
    .addColumn('at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('worker_status_history_pk', ['worker_id', 'seq'])
    .execute();
  await db.schema.createIndex('worker_status_history_at').on('worker_status_history').columns(['worker_id', 'at']).execute();
  // Workers made before this migration start their history with the status they are in.
  await db.insertInto('worker_status_history')
    .columns(['worker_id', 'seq', 'account_id', 'mode', 'change', 'status', 'call_id', 'caller_call_id', 'at'])
    .expression(db.selectFrom('workers').select([
      'id', sql<number>`1`.as('seq'), 'account_id', 'mode', sql<string>`'status'`.as('change'), 'status', 'current_call_id',
      sql<string | null>`null`.as('caller_call_id'), 'status_changed_at',
    ]))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('worker_status_history').execute();
}
