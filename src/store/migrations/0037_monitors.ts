import type { Kysely } from 'kysely';

// Supervisors' monitors (docs/contact-center.md, "Supervisors"): a supervisor's call seated
// beside two connected calls (a queue's caller and the agent that took it) in listen, whisper
// or barge mode. One row per monitor; the conversation is named by its two calls, and at most
// one monitor of a conversation is open (not ended) at a time. Dialect-neutral DDL.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('monitors')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    // The call the monitor was asked for, and the two calls of its conversation.
    .addColumn('call_id', 'text', (c) => c.notNull())
    .addColumn('caller_call_id', 'text', (c) => c.notNull())
    .addColumn('agent_call_id', 'text', (c) => c.notNull())
    .addColumn('supervisor_call_id', 'text', (c) => c.notNull())
    .addColumn('worker_id', 'text')
    .addColumn('monitor_mode', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('end_reason', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text')
    .addColumn('ended_at', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('monitors_call').on('monitors').columns(['call_id', 'id']).execute();
  // A call's end finds the monitors of its conversation; a supervisor's call finds its monitor.
  await db.schema.createIndex('monitors_caller').on('monitors').columns(['caller_call_id', 'status']).execute();
  await db.schema.createIndex('monitors_agent').on('monitors').columns(['agent_call_id', 'status']).execute();
  await db.schema.createIndex('monitors_supervisor').on('monitors').column('supervisor_call_id').unique().execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('monitors').execute();
}
