// The CLI opens the same store as the server (SQLite WAL or PostgreSQL), so it works while
// a server is running on it.
import { loadConfig } from '../config.ts';
import { openDatabase, type Database } from '../store/db.ts';
import { migrateToLatest } from '../store/migrate.ts';
import { systemClock } from '../platform/clock.ts';
import { AccountService } from '../modules/accounts/service.ts';
import { KeyService } from '../modules/keys/service.ts';

export async function withStore<T>(dataDir: string | undefined, fn: (s: { database: Database; accounts: AccountService; keys: KeyService }) => Promise<T>): Promise<T> {
  const config = loadConfig(process.env, dataDir ? { dataDir } : {});
  const database = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 2 });
  try {
    await migrateToLatest(database);
    return await fn({ database, accounts: new AccountService(database.db, systemClock), keys: new KeyService(database.db, systemClock) });
  } finally {
    await database.close();
  }
}
