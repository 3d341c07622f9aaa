// Processes started at once on a new, empty store each bring it up to date without tripping
// over the others: `npm start` beside a first CLI command, or several nodes started together.
// On SQLite nothing serialised Kysely's migrator (found from outside: 4 of 5 pairs of CLI
// commands on a new data folder failed with `migration 0001_platform failed: table "accounts"
// already exists`); on PostgreSQL Kysely's advisory lock does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPostgresDatabase, postgresUrl } from '../helpers/database.ts';

interface Run { status: number | null; stdout: string; stderr: string }

function cli(env: Record<string, string | undefined>, args: string[]): Promise<Run> {
  const child = spawn(process.execPath, ['bin/switchboard.js', ...args], { env: { ...process.env, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => { stdout += d; });
  child.stderr.on('data', (d) => { stderr += d; });
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })));
}

/** A store nothing has migrated yet: an empty data folder, or a new empty PostgreSQL database. */
async function emptyStore(): Promise<{ env: Record<string, string | undefined>; drop(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sb-migrate-'));
  const dropDir = async () => rmSync(dataDir, { recursive: true, force: true });
  if (!postgresUrl) return { env: { SWITCHBOARD_DATA_DIR: dataDir, DATABASE_URL: undefined }, drop: dropDir };
  const database = await createPostgresDatabase('sbt_migrate_');
  return {
    env: { SWITCHBOARD_DATA_DIR: dataDir, DATABASE_URL: database.url },
    async drop() {
      await dropDir();
      await database.drop();
    },
  };
}

test('four processes started at once on a new store all migrate it and answer; the store is usable after', async () => {
  for (let round = 0; round < 2; round++) {
    const store = await emptyStore();
    try {
      const runs = await Promise.all(Array.from({ length: 4 }, () => cli(store.env, ['accounts', 'list', '--json'])));
      for (const run of runs) assert.equal(run.status, 0, `round ${round}: ${run.stderr}`);
      assert.deepEqual(runs.map((run) => JSON.parse(run.stdout)), [[], [], [], []]);
      const created = await cli(store.env, ['accounts', 'create', '--plan', 'trial', '--json']);
      assert.equal(created.status, 0, created.stderr);
      const listed = await cli(store.env, ['accounts', 'list', '--json']);
      assert.equal(JSON.parse(listed.stdout).length, 1);
    } finally {
      await store.drop();
    }
  }
});
