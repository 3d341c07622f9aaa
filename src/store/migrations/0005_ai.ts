import type { Kysely } from 'kysely';

// AI receptionist: agents, knowledge documents and their chunks, conversations; and the
// direction of a call (inbound calls reach AI agents). Dialect-neutral DDL.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('calls').addColumn('direction', 'text', (c) => c.notNull().defaultTo('outbound')).execute();
  // Which numbers an agent answers: read on every agent fetch and on delete.
  await db.schema.createIndex('numbers_agent').on('numbers').columns(['agent_id']).execute();

  await db.schema
    .createTable('ai_agents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('greeting', 'text', (c) => c.notNull())
    .addColumn('instructions', 'text', (c) => c.notNull())
    .addColumn('language', 'text', (c) => c.notNull())
    .addColumn('voice', 'text', (c) => c.notNull())
    .addColumn('transfer_number', 'text')
    .addColumn('business_hours', 'text')
    .addColumn('after_hours_message', 'text')
    .addColumn('webhook_url', 'text')
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('knowledge_version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('deleted_at', 'text')
    .execute();
  await db.schema.createIndex('ai_agents_account').on('ai_agents').columns(['account_id', 'mode', 'id']).execute();

  await db.schema
    .createTable('ai_knowledge_documents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('agent_id', 'text', (c) => c.notNull().references('ai_agents.id'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('source_url', 'text')
    .addColumn('size_bytes', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('chunk_count', 'integer', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ai_documents_agent').on('ai_knowledge_documents').columns(['agent_id', 'id']).execute();

  await db.schema
    .createTable('ai_knowledge_chunks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('document_id', 'text', (c) => c.notNull().references('ai_knowledge_documents.id').onDelete('cascade'))
    .addColumn('agent_id', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('heading', 'text')
    .addColumn('text', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ai_chunks_agent').on('ai_knowledge_chunks').columns(['agent_id', 'document_id', 'position']).execute();
  await db.schema.createIndex('ai_chunks_document').on('ai_knowledge_chunks').columns(['document_id']).execute();

  await db.schema
    .createTable('ai_conversations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('agent_id', 'text', (c) => c.notNull())
    .addColumn('call_id', 'text', (c) => c.notNull().unique())
    .addColumn('number_id', 'text', (c) => c.notNull())
    .addColumn('from_number', 'text', (c) => c.notNull())
    .addColumn('to_number', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text')
    .addColumn('transcript', 'text', (c) => c.notNull())
    .addColumn('message', 'text')
    .addColumn('engine', 'text', (c) => c.notNull())
    .addColumn('fallbacks', 'text', (c) => c.notNull())
    .addColumn('caller_script', 'text', (c) => c.notNull())
    .addColumn('script_position', 'integer', (c) => c.notNull())
    .addColumn('pending_transfer', 'integer')
    .addColumn('duration_seconds', 'integer')
    .addColumn('score', 'text')
    .addColumn('score_overall', 'integer')
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('ended_at', 'text')
    .addColumn('scored_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // One index per list filter, each ending in id so the cursor is a range scan within it.
  const indexes: Array<[string, string[]]> = [
    ['ai_conversations_account', ['account_id', 'mode', 'id']],
    ['ai_conversations_agent', ['account_id', 'mode', 'agent_id', 'id']],
    ['ai_conversations_status', ['account_id', 'mode', 'status', 'id']],
    ['ai_conversations_outcome', ['account_id', 'mode', 'outcome', 'id']],
    ['ai_conversations_from', ['account_id', 'mode', 'from_number', 'id']],
    ['ai_conversations_score', ['account_id', 'mode', 'score_overall', 'id']],
    ['ai_conversations_created', ['account_id', 'mode', 'created_at', 'id']],
  ];
  for (const [name, columns] of indexes) await db.schema.createIndex(name).on('ai_conversations').columns(columns).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('ai_conversations').execute();
  await db.schema.dropTable('ai_knowledge_chunks').execute();
  await db.schema.dropTable('ai_knowledge_documents').execute();
  await db.schema.dropTable('ai_agents').execute();
  await db.schema.dropIndex('numbers_agent').execute();
  await db.schema.alterTable('calls').dropColumn('direction').execute();
}
