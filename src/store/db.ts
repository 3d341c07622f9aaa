// The Kysely instance over one of two engines: better-sqlite3 (embedded default, WAL) or
// PostgreSQL (DATABASE_URL). Everything above this file is dialect-neutral: timestamps are
// RFC 3339 text, booleans 0/1 integers, JSON documents text.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { Kysely, PostgresDialect, SqliteDialect, type Driver } from 'kysely';
import { insideTransaction } from './transaction.ts';
import { startCheckpointer } from './sqlite-checkpointer.ts';
import type { Tables } from './tables.ts';

export type Engine = 'sqlite' | 'postgres';

export interface Database {
  db: Kysely<Tables>;
  engine: Engine;
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
}

export function openDatabase(opts: OpenOptions): Database {
  if (opts.databaseUrl && /^postgres(ql)?:\/\//.test(opts.databaseUrl)) {
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: opts.poolSize ?? 10 });
    // An idle client whose connection the server closed (restart, failover, admin) emits
    // 'error'; unhandled, that would crash the process. The pool replaces it on next use.
    pool.on('error', (err) => opts.onPoolError?.(err));
    const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
    const url = new URL(opts.databaseUrl);
    return {
      db,
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
  const checkpointer = opts.backgroundCheckpoints
    ? (sqlite.pragma('wal_autocheckpoint = 0'), startCheckpointer(file, (m) => opts.onPoolError?.(new Error(m))))
    : null;
  const db = new Kysely<Tables>({ dialect: new GuardedSqliteDialect({ database: withStatementCache(sqlite) }) });
  return {
    db,
    engine: 'sqlite',
    location: file,
    async close() {
      await checkpointer?.stop();
      await db.destroy();
    },
  };
}

/**
 * SQLite has one connection. Code inside a transaction that queries the database instead
 * of its `trx` would wait for that very transaction: a silent, permanent hang. This makes
 * it fail at once with a message that names the mistake.
 */
class GuardedSqliteDialect extends SqliteDialect {
  override createDriver(): Driver {
    const driver = super.createDriver();
    const acquire = driver.acquireConnection.bind(driver);
    driver.acquireConnection = async () => {
      if (insideTransaction.getStore()) {
        throw new Error('a query on the database was made inside a transaction: pass the transaction (trx) instead, or it would wait for itself');
      }
      return acquire();
    };
    return driver;
  }
}

/**
 * Kysely's SQLite driver prepares every query afresh; preparing costs more than running
 * most of our queries. Statements are reusable, so we keep the most recent ones by SQL
 * text (queries use parameters, so the set of distinct texts is small).
 */
function withStatementCache(sqlite: SQLite.Database, size = 500): SQLite.Database {
  const cache = new Map<string, SQLite.Statement>();
  const prepare = sqlite.prepare.bind(sqlite);
  return new Proxy(sqlite, {
    get(target, prop, receiver) {
      if (prop !== 'prepare') return Reflect.get(target, prop, receiver);
      return (sql: string) => {
        let statement = cache.get(sql);
        if (statement) return statement;
        statement = prepare(sql);
        if (cache.size >= size) cache.delete(cache.keys().next().value!);
        cache.set(sql, statement);
        return statement;
      };
    },
  });
}
