import { sql, type Kysely } from 'kysely';

// calls.post_dial_delay_ms: a live call's time from sending the INVITE to the first 180 or 183,
// measured by the SIP carrier when it happens (no stored instant could give it afterwards:
// `queued` is when the API accepted the call, not when the INVITE left); the call analytics
// rank it for post-dial delay p50/p95. Null for sandbox calls and calls answered without a 18x.
//
// switchboard_calls_active is read on every Prometheus scrape, across all accounts: without
// this index it would walk every call ever made. The index holds only the calls that hold a
// line, so it stays as small as the traffic; the gauge's query repeats its predicate verbatim
// (modules/calls/metrics.ts), which is what both engines need to use a partial index.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('calls').addColumn('post_dial_delay_ms', 'integer').execute();
  await db.schema.createIndex('calls_active').on('calls').column('mode')
    .where(sql<boolean>`status in ('queued', 'ringing', 'in_progress')`).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('calls_active').execute();
  await db.schema.alterTable('calls').dropColumn('post_dial_delay_ms').execute();
}
