// The Kysely instance over one of two engines: better-sqlite3 (embedded default, WAL) or
// PostgreSQL (DATABASE_URL). Everything above this file is dialect-neutral: timestamps are
// RFC 3339 text, booleans 0/1 integers, JSON documents text.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { Kysely, PostgresDialect, SqliteDialect, type Driver } from 'kysely';
import { GroupCommitSqliteDriver, type GroupLimits } from './sqlite-group-commit.ts';
import { startCheckpointer } from './sqlite-checkpointer.ts';
import { ScopingDriver } from './request-transaction.ts';
import { registerDirect } from './direct-connection.ts';
import type { Tables } from './tables.ts';

export type Engine = 'sqlite' | 'postgres';

export interface Database {
  db: Kysely<Tables>;
  engine: Engine;
  /** Opens and ends request-wide transactions (src/store/request-transaction.ts). */
  scoping: ScopingDriver;
  /** Human-readable location for logs (never includes a password). */
  location: string;
  close(): Promise<void>;
}

// PostgreSQL returns int8/numeric as strings by default; our counts and sizes fit in a double.
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1700, (v) => Number(v));

export interface OpenOptions {
  databaseUrl?: string | undefined;
  dataDir: string;
  poolSize?: number;
  /** PostgreSQL: an idle connection was lost (the pool replaces it). SQLite: a checkpoint failed. */
  onPoolError?: (err: Error) => void;
  /** SQLite: checkpoint the WAL from a worker thread instead of inside commits (the server). */
  backgroundCheckpoints?: boolean;
  /** SQLite: when a commit group commits (sqlite-group-commit.ts); its defaults otherwise. Tests that need a group to stay open under load set a longer age. */
  groupCommit?: GroupLimits;
}

export function openDatabase(opts: OpenOptions): Database {
  if (opts.databaseUrl && /^postgres(ql)?:\/\//.test(opts.databaseUrl)) {
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: opts.poolSize ?? 10 });
    // An idle client whose connection the server closed (restart, failover, admin) emits
    // 'error'; unhandled, that would crash the process. The pool replaces it on next use.
    pool.on('error', (err) => opts.onPoolError?.(err));
    const dialect = new ScopingPostgresDialect({ pool });
    const db = new Kysely<Tables>({ dialect });
    registerDirect(db, dialect.scoping, dialect);
    const url = new URL(opts.databaseUrl);
    return {
      db,
      scoping: dialect.scoping,
      engine: 'postgres',
      location: `postgres://${url.host}${url.pathname}`,
      close: () => db.destroy(),
    };
  }
  if (opts.databaseUrl) throw new Error('DATABASE_URL must start with postgres:// or postgresql://');
  mkdirSync(opts.dataDir, { recursive: true });
  const file = join(opts.dataDir, 'switchboard.db');
  const sqlite = new SQLite(file);
  // WAL lets the CLI read and write while a server runs on the same file; the busy
  // timeout makes a second process wait for the writer instead of failing.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  // Each transaction in a commit group is a savepoint, whose undo log is a temp file
  // unless temporary storage is kept in memory.
  sqlite.pragma('temp_store = MEMORY');
  const checkpointer = opts.backgroundCheckpoints
    ? (sqlite.pragma('wal_autocheckpoint = 0'), startCheckpointer(file, (m) => opts.onPoolError?.(new Error(m))))
    : null;
  const dialect = new GroupCommitSqliteDialect(sqlite, opts.groupCommit);
  const db = new Kysely<Tables>({ dialect });
  registerDirect(db, dialect.scoping, dialect);
  return {
    db,
    scoping: dialect.scoping,
    engine: 'sqlite',
    location: file,
    async close() {
      await checkpointer?.stop();
      await db.destroy();
    },
  };
}

/** Kysely's SQLite dialect, with our driver: group commit and the transaction guard. */
class GroupCommitSqliteDialect extends SqliteDialect {
  readonly scoping: ScopingDriver;

  constructor(sqlite: SQLite.Database, limits?: GroupLimits) {
    super({ database: sqlite });
    this.scoping = new ScopingDriver(new GroupCommitSqliteDriver(sqlite, limits), true);
  }

  override createDriver(): Driver {
    return this.scoping;
  }
}

/** Kysely's PostgreSQL dialect, with request scopes. */
class ScopingPostgresDialect extends PostgresDialect {
  readonly scoping = new ScopingDriver(super.createDriver());

  override createDriver(): Driver {
    return this.scoping;
  }
}
