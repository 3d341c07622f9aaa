import { sql, type Kysely } from 'kysely';

// Several media nodes on one database (docs/live-voice.md, "Several nodes"). `calls.node`:
// the node whose memory holds a live call's SIP dialog and media (null for sandbox calls,
// and for live calls on SQLite's single node, where any job may act on them). `jobs.node`:
// a job that acts on such a call is claimable only by that node (null: by any). Both
// indexes are partial, so the many rows without a node (every webhook delivery) cost nothing.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('calls').addColumn('node', 'text').execute();
  await db.schema.alterTable('jobs').addColumn('node', 'text').execute();
  await db.schema.createIndex('calls_node').on('calls').columns(['node', 'status']).where(sql.ref('node'), 'is not', null).execute();
  await db.schema.createIndex('jobs_node').on('jobs').column('node').where(sql.ref('node'), 'is not', null).execute();
  // Live calls up while this runs recorded their node in carrier_state until now.
  const active = await db.selectFrom('calls').select(['id', 'carrier_state'])
    .where('carrier', '=', 'sip').where('status', 'in', ['queued', 'ringing', 'in_progress']).execute();
  for (const row of active as Array<{ id: string; carrier_state: string }>) {
    const node = (JSON.parse(row.carrier_state) as { node?: string }).node;
    if (node) await db.updateTable('calls').set({ node }).where('id', '=', row.id).execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('jobs_node').execute();
  await db.schema.dropIndex('calls_node').execute();
  await db.schema.alterTable('jobs').dropColumn('node').execute();
  await db.schema.alterTable('calls').dropColumn('node').execute();
}
