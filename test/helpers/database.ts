// Every test file gets a fresh store: a temporary SQLite data dir, or, when DATABASE_URL
// points at PostgreSQL, a new database created for this file and dropped afterwards.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export interface TestStore {
  dataDir: string;
  databaseUrl: string | undefined;
  engine: 'sqlite' | 'postgres';
  drop(): Promise<void>;
}

export const postgresUrl = process.env.DATABASE_URL && /^postgres(ql)?:/.test(process.env.DATABASE_URL) ? process.env.DATABASE_URL : undefined;

export async function createTestStore(): Promise<TestStore> {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-test-'));
  if (!postgresUrl) {
    return { dataDir, databaseUrl: undefined, engine: 'sqlite', drop: async () => rmSync(dataDir, { recursive: true, force: true }) };
  }
  const name = `sbt_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(postgresUrl);
  url.pathname = `/${name}`;
  return {
    dataDir,
    databaseUrl: url.toString(),
    engine: 'postgres',
    async drop() {
      rmSync(dataDir, { recursive: true, force: true });
      const c = new pg.Client({ connectionString: postgresUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}
