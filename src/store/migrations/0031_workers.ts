import type { Kysely } from 'kysely';

// Workers (docs/contact-center.md, "Workers"): the human agents a queue's callers are routed
// to, per account and mode. `reach` is a JSON document; a softphone's SIP user name is also a
// column of its own, unique across Switchboard, because a REGISTER names only the user and the
// registrar must find the one worker it belongs to. The digest HA1 of its password is all that
// is kept of the password. Queues get their routing settings. Dialect-neutral DDL.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('workers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('skills', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('reach', 'text', (c) => c.notNull())
    .addColumn('sip_user', 'text')
    .addColumn('sip_ha1', 'text')
    .addColumn('sip_credentials_at', 'text')
    .addColumn('ring_timeout_seconds', 'integer', (c) => c.notNull())
    .addColumn('wrap_up_seconds', 'integer', (c) => c.notNull())
    .addColumn('last_idle_at', 'text')
    .addColumn('current_call_id', 'text')
    // The call ringing the worker for an offer, the queue and the caller it offers, and when.
    .addColumn('offer_call_id', 'text')
    .addColumn('offer_queue_id', 'text')
    .addColumn('offer_caller_call_id', 'text')
    .addColumn('last_offer_at', 'text')
    .addColumn('status_changed_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // Lists page by id within an account and mode, optionally by status.
  await db.schema.createIndex('workers_account').on('workers').columns(['account_id', 'mode', 'id']).execute();
  // Routing looks for the longest idle available worker of an account and mode.
  await db.schema.createIndex('workers_idle').on('workers').columns(['account_id', 'mode', 'status', 'last_idle_at']).execute();
  await db.schema.createIndex('workers_sip_user').on('workers').column('sip_user').unique().execute();
  await db.schema.createIndex('workers_offer_call').on('workers').column('offer_call_id').execute();
  await db.schema.createIndex('workers_current_call').on('workers').column('current_call_id').execute();
  // A queue's routing to workers (JSON; null: callers wait for a dequeue).
  await db.schema.alterTable('queues').addColumn('routing', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('queues').dropColumn('routing').execute();
  await db.schema.dropTable('workers').execute();
}
