// With SWITCHBOARD_TRANSACTION_GUARD on (as in every test server), a query made on the plain
// database inside a transaction fails at once, instead of waiting forever for that very
// transaction on SQLite's single connection.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { openDatabase } from '../../src/store/db.ts';
import { guardTransactions, inTransaction } from '../../src/store/transaction.ts';

test('a query on the database inside a transaction fails at once and names the mistake', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-guard-'));
  const { db, close } = openDatabase({ dataDir });
  guardTransactions(true);
  try {
    await assert.rejects(
      inTransaction(db, async () => sql`select 1`.execute(db)),
      /a query on the database was made inside a transaction: pass the transaction \(trx\) instead/,
    );
    // The connection is free again: the right way works.
    const rows = await inTransaction(db, async (trx) => (await sql<{ one: number }>`select 1 as one`.execute(trx)).rows);
    assert.deepEqual(rows, [{ one: 1 }]);
  } finally {
    guardTransactions(false);
    await close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
