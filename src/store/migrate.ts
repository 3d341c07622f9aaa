import SQLite from 'better-sqlite3';
import { Migrator } from 'kysely';
import type { Database } from './db.ts';
import { migrations } from './migrations/index.ts';

/**
 * Brings the schema up to date. Safe with several processes on one database: on PostgreSQL
 * Kysely runs the migrations in one transaction holding an advisory lock; on SQLite it takes
 * no lock at all (its adapter has no transactional DDL and a no-op lock), so two processes
 * started at once on a new data folder (`npm start` and a CLI command, two nodes) both ran
 * 0001, and one failed with `table "accounts" already exists`. There the migrations run
 * holding an exclusive lock on a file of their own beside the database.
 */
export async function migrateToLatest(database: Database): Promise<void> {
  const release = database.engine === 'sqlite' ? lockMigrations(database.location) : () => {};
  try {
    const migrator = new Migrator({
      db: database.db,
      provider: { getMigrations: async () => migrations },
    });
    const { error, results } = await migrator.migrateToLatest();
    const failed = results?.find((r) => r.status === 'Error');
    if (error || failed) {
      throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  } finally {
    release();
  }
}

/**
 * An exclusive SQLite lock on `<database file>-migrations.lock`, waited for up to a minute.
 * Not the database file itself: our own migrations write to it through another connection.
 * SQLite's file locks die with their process, so a migration killed half way leaves no stale
 * lock behind (and Kysely's own table records which migrations committed).
 */
function lockMigrations(databaseFile: string): () => void {
  const lock = new SQLite(`${databaseFile}-migrations.lock`);
  try {
    lock.pragma('busy_timeout = 60000');
    lock.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    lock.close();
    throw error;
  }
  return () => {
    lock.exec('ROLLBACK');
    lock.close();
  };
}
