import type { Kysely } from 'kysely';

// One row sealed with the secret key the database's secrets are encrypted with
// (src/platform/secret-key-check.ts): a server started with another key (a second node without
// the shared SWITCHBOARD_SECRET_KEY, a data dir restored without its key file) refuses to start
// instead of failing every delivery it claims. Dialect-neutral DDL.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('secret_key_check')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('sealed', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('secret_key_check').execute();
}
