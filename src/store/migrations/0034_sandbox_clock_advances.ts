import type { Kysely } from 'kysely';

// Idempotent sandbox clock advances (issue 22): an advance with an Idempotency-Key records
// its key in the same transaction that moves the clock, so a retry after a crash between the
// move and the stored answer does not move the clock twice. The advance's jobs then run in
// their own transactions, never inside one request-wide transaction that would hold SQLite's
// only connection, and every other tenant's writes with it, for as long as they take.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createTable('sandbox_clock_advances')
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    .addColumn('offset_ms', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('sandbox_clock_advances_pk', ['account_id', 'idempotency_key'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('sandbox_clock_advances').execute();
}
