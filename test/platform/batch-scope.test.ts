// What a SerialBatcher's transaction remembers and defers (src/store/batch-scope.ts), against
// the real store (SQLite or PostgreSQL): rows deferred by a batch's writes are inserted before
// it commits and only then does any caller hear back; a value is loaded once per batch; outside
// a batch nothing is remembered or deferred; and a batch whose deferred INSERT fails is rolled
// back whole, then each write applied alone, so only the bad one fails.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Kysely } from 'kysely';
import { openDatabase, type Database } from '../../src/store/db.ts';
import { inTransaction, type Trx } from '../../src/store/transaction.ts';
import { SerialBatcher } from '../../src/store/serial-batch.ts';
import { deferInsert, inBatchScope, remember } from '../../src/store/batch-scope.ts';
import type { Tables } from '../../src/store/tables.ts';
import { createTestStore, type TestStore } from '../helpers/database.ts';

let store: TestStore;
let database: Database;
let db: Kysely<any>;

// The helpers are typed for the platform's tables; the test table is its own.
const notes = 'bs_notes' as keyof Tables & string;

before(async () => {
  store = await createTestStore();
  database = openDatabase({ databaseUrl: store.databaseUrl, dataDir: store.dataDir });
  db = database.db as unknown as Kysely<any>;
  await db.schema.createTable('bs_notes').addColumn('id', 'text', (c) => c.primaryKey()).addColumn('body', 'text', (c) => c.notNull()).execute();
});

after(async () => {
  await database.close();
  await store.drop();
});

/** A write that inserts one note, deferred in a batch, and loads a shared value through the memo. */
function writer(loads: { count: number }) {
  return async (trx: Trx, id: string): Promise<boolean> => {
    await remember(trx, 'shared', async () => { loads.count++; return 'loaded'; });
    const row = { id, body: `note ${id}` };
    const deferred = deferInsert(trx, notes, [row]);
    if (!deferred) await trx.insertInto(notes).values(row as never).execute();
    return deferred;
  };
}

test('a batch inserts its deferred rows before it commits, and loads a remembered value once', async () => {
  const loads = { count: 0 };
  const batcher = new SerialBatcher(database.db, writer(loads), { maxItems: 10 });
  const results = await Promise.all(['a1', 'a2', 'a3'].map((id) => batcher.add(id)));
  assert.deepEqual(results, [true, true, true], 'each write was deferred');
  // Every caller heard back after the commit: the rows are there for anyone.
  const rows = await db.selectFrom('bs_notes').select('id').where('id', 'like', 'a%').orderBy('id').execute();
  assert.deepEqual(rows.map((r) => r.id), ['a1', 'a2', 'a3']);
  assert.equal(loads.count, 1, 'the three writes of one batch loaded the value once');
});

test('outside a batch nothing is deferred or remembered', async () => {
  const loads = { count: 0 };
  const write = writer(loads);
  const deferred = await inTransaction(database.db, async (trx) => {
    assert.equal(inBatchScope(trx), false);
    return [await write(trx, 'b1'), await write(trx, 'b2')];
  });
  assert.deepEqual(deferred, [false, false]);
  assert.equal(loads.count, 2);
  const rows = await db.selectFrom('bs_notes').select('id').where('id', 'like', 'b%').execute();
  assert.equal(rows.length, 2);
});

test('a batch whose deferred INSERT fails is rolled back, and then only the bad write fails', async () => {
  await db.insertInto('bs_notes').values({ id: 'c2', body: 'already here' }).execute();
  const batcher = new SerialBatcher(database.db, writer({ count: 0 }), { maxItems: 10 });
  const outcomes = await Promise.allSettled(['c1', 'c2', 'c3'].map((id) => batcher.add(id)));
  assert.deepEqual(outcomes.map((o) => o.status), ['fulfilled', 'rejected', 'fulfilled']);
  // Applied alone (no batch): inserted at once, not deferred.
  assert.deepEqual(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : null)), [false, null, false]);
  const rows = await db.selectFrom('bs_notes').select(['id', 'body']).where('id', 'like', 'c%').orderBy('id').execute();
  assert.deepEqual(rows, [{ id: 'c1', body: 'note c1' }, { id: 'c2', body: 'already here' }, { id: 'c3', body: 'note c3' }]);
});
