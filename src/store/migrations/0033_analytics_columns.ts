import { PostgresAdapter, sql, type Kysely } from 'kysely';

// Analytics and metrics over the contact center, and faster message figures.
//
// messages.delivery_ms: an outbound message's time from acceptance to delivery, stamped by the
// message state machine when it is delivered. The time-to-delivery percentiles rank it; before
// it they parsed two RFC 3339 timestamps per delivered message to subtract them, which cost
// most of the query (400 to 500 ms of CPU for a month of a million messages, docs/benchmarks.md).
// Rows delivered before this migration get it computed once here. The partial index
// messages_delivery holds only delivered messages, with every column the percentiles read
// (bucket from created_at, channel for group_by=channel, the delay), so they are answered from
// the index without reading the wide message rows; a message adds its entry once, when delivered.
//
// queue_members (account_id, mode, enqueued_at): GET /v1/analytics/queues reads a window of an
// account's queue stays by when they joined, as the other figures read by created_at.
//
// The queue and conference gauges of GET /metrics count, across all accounts, the callers in a
// queue, the conferences not ended and the participants joined: without these partial indexes
// each scrape would walk every stay and conference ever made. They hold only what is live now,
// so they stay as small as the traffic (like calls_active, migration 0026); the gauges' queries
// repeat these predicates verbatim, which is what both engines need to use a partial index.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('messages').addColumn('delivery_ms', 'integer').execute();
  const elapsed = db.getExecutor().adapter instanceof PostgresAdapter
    ? sql`round(extract(epoch from (delivered_at::timestamptz - created_at::timestamptz)) * 1000)::bigint`
    : sql`cast(round((julianday(delivered_at) - julianday(created_at)) * 86400000) as integer)`;
  await sql`update messages set delivery_ms = ${elapsed} where delivered_at is not null and direction = 'outbound'`.execute(db);
  await db.schema.createIndex('messages_delivery').on('messages').columns(['account_id', 'mode', 'created_at', 'channel', 'delivery_ms'])
    .where(sql.ref('delivery_ms'), 'is not', null).execute();
  await db.schema.createIndex('queue_members_enqueued').on('queue_members').columns(['account_id', 'mode', 'enqueued_at']).execute();
  await db.schema.createIndex('queue_members_in_queue').on('queue_members').columns(['mode', 'enqueued_at'])
    .where(sql<boolean>`status in ('waiting', 'reserved')`).execute();
  await db.schema.createIndex('conferences_active').on('conferences').column('mode')
    .where(sql<boolean>`status in ('waiting', 'in_progress')`).execute();
  await db.schema.createIndex('conference_participants_joined').on('conference_participants').column('mode')
    .where(sql<boolean>`status = 'joined'`).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('conference_participants_joined').execute();
  await db.schema.dropIndex('conferences_active').execute();
  await db.schema.dropIndex('queue_members_in_queue').execute();
  await db.schema.dropIndex('queue_members_enqueued').execute();
  await db.schema.dropIndex('messages_delivery').execute();
  await db.schema.alterTable('messages').dropColumn('delivery_ms').execute();
}
