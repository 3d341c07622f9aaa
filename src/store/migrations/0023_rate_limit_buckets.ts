import { PostgresAdapter, sql, type Kysely } from 'kysely';

// Rate-limit token buckets shared by every node on PostgreSQL (src/platform/shared-rate-limiter.ts).
// UNLOGGED: a bucket is worth no WAL write per request, and a crash that empties the table only
// hands every caller a full bucket again. No index beyond the key, so the update every request
// makes stays a HOT update; the sweep of idle buckets scans a bounded number of rows instead.
// SQLite is one node and keeps its buckets in memory: nothing is created there.
export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`CREATE UNLOGGED TABLE rate_limit_buckets (
    key text PRIMARY KEY,
    tokens double precision NOT NULL,
    granted integer NOT NULL,
    updated_at timestamptz NOT NULL
  ) WITH (fillfactor = 70)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await db.schema.dropTable('rate_limit_buckets').execute();
}
