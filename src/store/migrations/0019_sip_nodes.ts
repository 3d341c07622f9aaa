import type { Kysely } from 'kysely';

// Media nodes (docs/live-voice.md, "Several nodes"): each node running the live SIP carrier
// keeps a row here fresh (`heartbeat_at`); a node whose row goes stale past the lease is
// dead, and a survivor fails the live calls it carried. Dialect-neutral DDL.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('sip_nodes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('heartbeat_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('sip_nodes').execute();
}
