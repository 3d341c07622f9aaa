// Every test file gets a fresh store: a temporary SQLite data dir, or, when DATABASE_URL
// points at PostgreSQL, a new database created for this file and dropped afterwards.
//
// On PostgreSQL the new database is a copy of a migrated template, so a file does not replay
// every migration (about 1.5 s and the server's CPU, per file): the first file of a run that
// finds no template for the current migrations builds it (from an empty database, with the
// real migrator, under an advisory lock so concurrent files build it once) and all others
// clone it. The template's name carries a hash of src/store/migrations, so changing or adding
// a migration builds a new one. A migrated store starts exactly as a migrated empty one: the
// migrations write schema only, no rows.
//
// On SQLite the same holds with a file: the first file of a run that finds no migrated copy
// of the current migrations in the temporary folder writes one (under a temporary name,
// renamed when complete, so a concurrent file never copies half of one), and every store
// starts as a copy of it. Replaying the migrations cost each file about 0.4 s of CPU.
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import Sqlite from 'better-sqlite3';
import { openDatabase } from '../../src/store/db.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';

export interface TestStore {
  dataDir: string;
  databaseUrl: string | undefined;
  engine: 'sqlite' | 'postgres';
  drop(): Promise<void>;
}

export const postgresUrl = process.env.DATABASE_URL && /^postgres(ql)?:/.test(process.env.DATABASE_URL) ? process.env.DATABASE_URL : undefined;

const MIGRATIONS_DIR = new URL('../../src/store/migrations/', import.meta.url);

/** sbt_tpl_ + a hash of every migration's source (and the migrator's). */
function templateName(): string {
  const hash = createHash('sha256');
  for (const name of readdirSync(MIGRATIONS_DIR).sort()) hash.update(name).update(readFileSync(new URL(name, MIGRATIONS_DIR)));
  hash.update(readFileSync(new URL('../migrate.ts', MIGRATIONS_DIR)));
  return `sbt_tpl_${hash.digest('hex').slice(0, 16)}`;
}

async function exists(admin: pg.Client, name: string): Promise<boolean> {
  return (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
}

export interface PostgresDatabase {
  name: string;
  url: string;
  /** Drops it, closing whatever is still connected to it. */
  drop(): Promise<void>;
}

/**
 * A new PostgreSQL database named `prefix` + a random suffix, on the server of `adminUrl`
 * (DATABASE_URL by default): empty and unmigrated, or a copy of `template`.
 */
export async function createPostgresDatabase(prefix: string, { adminUrl = postgresUrl, template }: { adminUrl?: string; template?: string } = {}): Promise<PostgresDatabase> {
  if (!adminUrl) throw new Error('createPostgresDatabase needs a postgres:// URL (DATABASE_URL)');
  const name = `${prefix}${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

let template: Promise<string> | undefined;

/** The migrated template's name, built if this is the first file to need it. */
function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    const name = templateName();
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    try {
      if (await exists(admin, name)) return name;
      // One builder per template: the others wait here, then find it built.
      const lockKey = Number.parseInt(name.slice(-12), 16) % 2 ** 31;
      await admin.query('SELECT pg_advisory_lock($1)', [lockKey]);
      try {
        if (await exists(admin, name)) return name;
        const building = await createPostgresDatabase('sbt_build_');
        try {
          const database = openDatabase({ databaseUrl: building.url, dataDir: tmpdir(), poolSize: 1 });
          try {
            await migrateToLatest(database);
          } finally {
            await database.close();
          }
          // Renamed only once complete: a template under its name is always fully migrated.
          await admin.query(`ALTER DATABASE ${building.name} RENAME TO ${name}`);
        } catch (err) {
          await building.drop();
          throw err;
        }
        return name;
      } finally {
        await admin.query('SELECT pg_advisory_unlock($1)', [lockKey]);
      }
    } finally {
      await admin.end();
    }
  })();
  template.catch(() => { template = undefined; });
  return template;
}

/** The path of a migrated SQLite file for the current migrations, written if this file is the first to need it. */
async function migratedSqliteFile(): Promise<string> {
  const file = join(tmpdir(), `switchboard-${templateName()}.db`);
  if (existsSync(file)) return file;
  const building = mkdtempSync(join(tmpdir(), 'switchboard-template-'));
  try {
    const database = openDatabase({ dataDir: building, poolSize: 1 });
    try {
      await migrateToLatest(database);
    } finally {
      await database.close();
    }
    // Everything in the one file (no -wal beside it), then into place in one step.
    const built = join(building, 'switchboard.db');
    const sqlite = new Sqlite(built);
    sqlite.pragma('wal_checkpoint(TRUNCATE)');
    sqlite.pragma('journal_mode = DELETE');
    sqlite.close();
    renameSync(built, file);
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
  return file;
}

export async function createTestStore(): Promise<TestStore> {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-test-'));
  if (!postgresUrl) {
    copyFileSync(await migratedSqliteFile(), join(dataDir, 'switchboard.db'));
    return { dataDir, databaseUrl: undefined, engine: 'sqlite', drop: async () => rmSync(dataDir, { recursive: true, force: true }) };
  }
  const database = await createPostgresDatabase('sbt_', { template: await migratedTemplate() });
  return {
    dataDir,
    databaseUrl: database.url,
    engine: 'postgres',
    async drop() {
      rmSync(dataDir, { recursive: true, force: true });
      await database.drop();
    },
  };
}
