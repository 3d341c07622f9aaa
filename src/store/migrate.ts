import { Migrator } from 'kysely';
import type { Database } from './db.ts';
import { migrations } from './migrations/index.ts';

/** Brings the schema up to date. Safe with several nodes: Kysely takes a lock while it runs. */
export async function migrateToLatest(database: Database): Promise<void> {
  const migrator = new Migrator({
    db: database.db,
    provider: { getMigrations: async () => migrations },
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}
