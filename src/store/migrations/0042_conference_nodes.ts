import type { Kysely } from 'kysely';

// Conferences across media nodes (docs/contact-center.md, "Several nodes"). `conferences.node`:
// the media node that mixes the conference, its first participant's (null: no node in
// particular, a sandbox conference or SQLite's single node). `sip_nodes.sip_address`: where a
// node takes the node-to-node media legs of the participants other nodes hold (host:port of
// its SIP listener over UDP).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('conferences').addColumn('node', 'text').execute();
  await db.schema.alterTable('sip_nodes').addColumn('sip_address', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('sip_nodes').dropColumn('sip_address').execute();
  await db.schema.alterTable('conferences').dropColumn('node').execute();
}
