import type { Kysely } from 'kysely';

// Listen sessions (`switchboard listen`): a webhook endpoint is delivered over HTTP (`http`)
// or over a server-sent-events stream a listener holds open (`listen`). `listener_seen_at`
// is when a listener last connected or disconnected, so a session nobody listens to any more
// can be disabled. Dialect-neutral DDL.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_endpoints').addColumn('transport', 'text', (c) => c.notNull().defaultTo('http')).execute();
  await db.schema.alterTable('webhook_endpoints').addColumn('listener_seen_at', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_endpoints').dropColumn('listener_seen_at').execute();
  await db.schema.alterTable('webhook_endpoints').dropColumn('transport').execute();
}
