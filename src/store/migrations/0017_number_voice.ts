import type { Kysely } from 'kysely';

// Voice configuration of a number (docs/voice-flows.md): the answer webhook, its fallback and a
// stored flow that inbound calls run. Dialect-neutral DDL; null means not set.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('numbers').addColumn('voice_url', 'text').execute();
  await db.schema.alterTable('numbers').addColumn('voice_fallback_url', 'text').execute();
  await db.schema.alterTable('numbers').addColumn('voice_flow', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('numbers').dropColumn('voice_flow').execute();
  await db.schema.alterTable('numbers').dropColumn('voice_fallback_url').execute();
  await db.schema.alterTable('numbers').dropColumn('voice_url').execute();
}
