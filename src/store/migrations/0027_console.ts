import type { Kysely } from 'kysely';

// The console (src/modules/console): its sign-in sessions, and the problems the API answered to
// each account, which its debugger page lists. Sessions are found by the hash of their cookie
// token (the primary key) and ended by key (revocation), hence the key_id index; problems are
// read newest first per account and mode.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createTable('console_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('console_sessions_key').on('console_sessions').column('key_id').execute();

  await db.schema.createTable('console_problems')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('console_problems_account').on('console_problems').columns(['account_id', 'mode', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('console_problems').execute();
  await db.schema.dropTable('console_sessions').execute();
}
