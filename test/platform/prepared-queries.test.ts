// The compiled-once queries of the hot path (src/store/prepared.ts), against the real store
// (SQLite or PostgreSQL): each writes and reads exactly what the same Kysely query does, inside
// a transaction and out of it, and a row the prepared form cannot take as it is (a column left
// out, an extra one, an SQL expression) goes through Kysely, so the database default or the
// expression applies as before.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql, type Kysely } from 'kysely';
import { openDatabase, type Database } from '../../src/store/db.ts';
import { inTransaction } from '../../src/store/transaction.ts';
import { prepareFor, prepareInsert, prepareStatement, prepareUpdateByIdAndStatus } from '../../src/store/prepared.ts';
import type { Tables } from '../../src/store/tables.ts';
import { createTestStore, type TestStore } from '../helpers/database.ts';

interface LampRow { id: string; status: string; watts: number; note: string | null; updated_at: string }

let store: TestStore;
let database: Database;
let db: Kysely<any>;

before(async () => {
  store = await createTestStore();
  database = openDatabase({ databaseUrl: store.databaseUrl, dataDir: store.dataDir });
  db = database.db as unknown as Kysely<any>;
  await db.schema.createTable('pq_lamps')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('watts', 'integer', (c) => c.notNull().defaultTo(40))
    .addColumn('note', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
});

after(async () => {
  await database.close();
  await store.drop();
});

// The helpers are typed for the platform's tables; the test table is its own.
const lamps = 'pq_lamps' as keyof Tables & string;
const insertLamp = prepareInsert(lamps, ['id', 'status', 'watts', 'note', 'updated_at']);
const moveLamp = prepareUpdateByIdAndStatus('pq_lamps');
const lampById = prepareFor((k, id: string) => (k as unknown as Kysely<any>).selectFrom('pq_lamps').selectAll().where('id', '=', id), 1);
const lampWithId = prepareStatement((k, id: string) => (k as unknown as Kysely<any>).insertInto('pq_lamps').values({ id, status: 'off', updated_at: 'x' }), 1);
const dimLamp = prepareStatement((k, watts: number, id: string) => (k as unknown as Kysely<any>).updateTable('pq_lamps').set({ watts }).where('id', '=', id), 2);

const read = async (id: string): Promise<LampRow | undefined> => (await db.selectFrom('pq_lamps').selectAll().where('id', '=', id).executeTakeFirst()) as LampRow | undefined;

describe('prepared queries', () => {
  test('a whole row is inserted as given, in a transaction and out of one; a select reads it back', async () => {
    await insertLamp(database.db, { id: 'lamp_1', status: 'off', watts: 60, note: null, updated_at: '2026-01-01T00:00:00.000Z' });
    await inTransaction(database.db, (trx) => insertLamp(trx, { id: 'lamp_2', status: 'on', watts: 9, note: 'it\'s "quoted"', updated_at: '2026-01-02T00:00:00.000Z' }));
    assert.deepEqual(await read('lamp_1'), { id: 'lamp_1', status: 'off', watts: 60, note: null, updated_at: '2026-01-01T00:00:00.000Z' });
    assert.deepEqual((await lampById(database.db, 'lamp_2'))[0], { id: 'lamp_2', status: 'on', watts: 9, note: 'it\'s "quoted"', updated_at: '2026-01-02T00:00:00.000Z' });
    assert.deepEqual(await lampById(database.db, 'lamp_none'), []);
  });

  test('a row without a listed column goes through Kysely: the column\'s default applies', async () => {
    await insertLamp(database.db, { id: 'lamp_3', status: 'off', note: null, updated_at: '2026-01-01T00:00:00.000Z' });
    await insertLamp(database.db, { id: 'lamp_4', status: 'off', watts: undefined, note: null, updated_at: '2026-01-01T00:00:00.000Z' });
    assert.equal((await read('lamp_3'))?.watts, 40);
    assert.equal((await read('lamp_4'))?.watts, 40);
  });

  test('a value that is an SQL expression is evaluated, not bound as text', async () => {
    await insertLamp(database.db, { id: 'lamp_5', status: 'off', watts: sql`20 + 22`, note: null, updated_at: '2026-01-01T00:00:00.000Z' });
    assert.equal((await read('lamp_5'))?.watts, 42);
  });

  test('a duplicate key fails as the same Kysely insert would, and rolls back with its transaction', async () => {
    await assert.rejects(insertLamp(database.db, { id: 'lamp_1', status: 'on', watts: 1, note: null, updated_at: 'x' }));
    await assert.rejects(inTransaction(database.db, async (trx) => {
      await insertLamp(trx, { id: 'lamp_6', status: 'on', watts: 1, note: null, updated_at: 'x' });
      throw new Error('roll back');
    }), /roll back/);
    assert.equal(await read('lamp_6'), undefined);
  });

  test('the move UPDATE changes the row only from the status read, and counts what it changed', async () => {
    const moved = await inTransaction(database.db, (trx) => moveLamp(trx, { status: 'on', note: 'lit', updated_at: '2026-01-03T00:00:00.000Z' }, 'lamp_1', 'off'));
    assert.equal(moved, 1);
    assert.deepEqual(await read('lamp_1'), { id: 'lamp_1', status: 'on', watts: 60, note: 'lit', updated_at: '2026-01-03T00:00:00.000Z' });
    // From a status it is no longer in: nothing changes.
    assert.equal(await moveLamp(database.db, { status: 'broken', updated_at: 'late' }, 'lamp_1', 'off'), 0);
    assert.equal((await read('lamp_1'))?.status, 'on');
  });

  test('the move leaves out undefined columns, takes other shapes of the same table, and evaluates expressions', async () => {
    assert.equal(await moveLamp(database.db, { status: 'off', note: undefined, updated_at: '2026-01-04T00:00:00.000Z' }, 'lamp_1', 'on'), 1);
    assert.equal((await read('lamp_1'))?.note, 'lit');
    assert.equal(await moveLamp(database.db, { status: 'on', watts: 75, updated_at: '2026-01-05T00:00:00.000Z' }, 'lamp_1', 'off'), 1);
    assert.equal(await moveLamp(database.db, { status: 'off', watts: sql`watts + 1`, updated_at: '2026-01-06T00:00:00.000Z' }, 'lamp_1', 'on'), 1);
    assert.deepEqual(await read('lamp_1'), { id: 'lamp_1', status: 'off', watts: 76, note: 'lit', updated_at: '2026-01-06T00:00:00.000Z' });
  });

  test('a prepared statement answers the rows it changed', async () => {
    const result = await dimLamp(database.db, 5, 'lamp_2');
    assert.equal(Number(result.numAffectedRows), 1);
    assert.equal(Number((await dimLamp(database.db, 5, 'lamp_none')).numAffectedRows), 0);
    assert.equal((await read('lamp_2'))?.watts, 5);
  });

  // Our transactions hold their connection themselves and run compiled statements straight on
  // it (src/store/direct-connection.ts): what each statement sees and writes stays inside its
  // transaction, and a transaction that has ended refuses both kinds of query.
  test('in a transaction, prepared and Kysely queries share its connection; once it has ended it refuses both', async () => {
    let kept: Kysely<Tables> | null = null;
    await inTransaction(database.db, async (trx) => {
      kept = trx;
      await insertLamp(trx, { id: 'lamp_7', status: 'on', watts: 7, note: null, updated_at: 'x' });
      // The Kysely-built query reads the prepared insert's row: the same connection and transaction.
      assert.equal(((await (trx as unknown as Kysely<any>).selectFrom('pq_lamps').select('watts').where('id', '=', 'lamp_7').executeTakeFirst()) as { watts: number }).watts, 7);
      await dimLamp(trx, 8, 'lamp_7');
      assert.equal((await lampById(trx, 'lamp_7'))[0]?.watts, 8);
    });
    assert.equal((await read('lamp_7'))?.watts, 8);
    await assert.rejects(lampById(kept!, 'lamp_7'), /already committed or rolled back/);
    await assert.rejects((kept! as unknown as Kysely<any>).selectFrom('pq_lamps').selectAll().execute(), /already committed or rolled back/);
    // A statement the database refuses (better-sqlite3 throws at once) is a rejected promise, as from Kysely.
    await assert.rejects(inTransaction(database.db, (trx) => {
      try {
        return lampWithId(trx, 'lamp_7');
      } catch {
        throw new Error('the prepared statement threw instead of answering a rejected promise');
      }
    }), /unique|duplicate/i);
  });

  test('every argument must be a parameter of the query', async () => {
    const constantOnly = prepareFor((k, _id: string) => (k as unknown as Kysely<any>).selectFrom('pq_lamps').selectAll().where('id', '=', 'fixed'), 1);
    await assert.rejects(constantOnly(database.db, 'lamp_1'), /every argument must appear/);
  });
});
