import type { Kysely } from 'kysely';

// Workers' softphone registrations (docs/contact-center.md, "Softphone registration"): one row
// per Contact a softphone REGISTERed, keyed by its SIP user and the Contact URI, kept until it
// lapses (expires_at) or is removed. Durable so any node finds where a worker's softphone is
// and a restart loses none. Where the REGISTER came from (address, port, transport) is kept to
// reach a softphone behind NAT; its Call-ID and CSeq let an older, reordered REGISTER change
// nothing. Dialect-neutral DDL.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createTable('sip_registrations')
    .addColumn('sip_user', 'text', (c) => c.notNull())
    .addColumn('contact', 'text', (c) => c.notNull())
    .addColumn('received_address', 'text', (c) => c.notNull())
    .addColumn('received_port', 'integer', (c) => c.notNull())
    .addColumn('transport', 'text', (c) => c.notNull())
    .addColumn('call_id', 'text', (c) => c.notNull())
    .addColumn('cseq', 'bigint', (c) => c.notNull())
    .addColumn('user_agent', 'text')
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('sip_registrations_pk', ['sip_user', 'contact'])
    .execute();
  // Routing asks whether a worker's user has a live binding.
  await db.schema.createIndex('sip_registrations_live').on('sip_registrations').columns(['sip_user', 'expires_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('sip_registrations').execute();
}
