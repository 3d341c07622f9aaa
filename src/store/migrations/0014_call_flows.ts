import type { Kysely } from 'kysely';

// Call flows (IVR): the flow a call runs and where it is (JSON text, null for a call without
// one), and the log of every verb it ran. Dialect-neutral DDL.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('calls').addColumn('flow_state', 'text').execute();
  await db.schema.alterTable('calls').addColumn('flow_log', 'text', (c) => c.notNull().defaultTo('[]')).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('calls').dropColumn('flow_log').execute();
  await db.schema.alterTable('calls').dropColumn('flow_state').execute();
}
