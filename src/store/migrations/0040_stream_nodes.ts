import type { Kysely } from 'kysely';

// The node whose process holds a media stream's socket (src/modules/streams): a stop asked of
// another node is sent there, and the open streams of a node that died or restarted are ended
// (docs/media-streams.md, "Restarts and several nodes"). Null on a single-node deployment.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('call_streams').addColumn('node', 'text').execute();
  await db.schema.createIndex('call_streams_node').on('call_streams').columns(['node', 'status']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('call_streams_node').execute();
  await db.schema.alterTable('call_streams').dropColumn('node').execute();
}
