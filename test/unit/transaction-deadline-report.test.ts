// What the transaction deadline reports when it rolls a transaction back: what it was
// waiting on (the log line names it), on both engines, and that the code which held the
// transaction fails instead of going on outside it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openDatabase, type Database } from '../../src/store/db.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { inTransaction } from '../../src/store/transaction.ts';
import { TransactionTimeoutError, inRequestScope, runInScope, type TimeoutReport } from '../../src/store/request-transaction.ts';
import { createTestStore, type TestStore } from '../helpers/database.ts';

let store: TestStore;
let database: Database;
const reports: TimeoutReport[] = [];

before(async () => {
  store = await createTestStore();
  database = openDatabase({ databaseUrl: store.databaseUrl, dataDir: store.dataDir });
  await migrateToLatest(database);
  database.scoping.setDeadline({ ms: 200, onTimeout: (report) => reports.push(report) });
});
after(async () => {
  await database?.close();
  await store?.drop();
});

test('a transaction stuck on a promise is rolled back at the deadline, named, and its code fails', async () => {
  const { db } = database;
  let release!: () => void;
  const stuck = new Promise<void>((resolve) => { release = resolve; });
  const held = inTransaction(db, async (trx) => {
    await trx.insertInto('sandbox_clocks').values({ account_id: 'acct_deadline', offset_ms: 1, updated_at: new Date().toISOString() }).execute();
    await stuck;
    await trx.selectFrom('sandbox_clocks').select('offset_ms').execute();
  });
  const outcome = held.then(() => null, (err: unknown) => err);

  await new Promise((resolve) => setTimeout(resolve, 400));
  // The deadline gave the connection back: on SQLite the one writer is free again.
  const rows = await db.selectFrom('sandbox_clocks').select('account_id').where('account_id', '=', 'acct_deadline').execute();
  assert.deepEqual(rows, [], 'the insert was rolled back');
  assert.equal(reports.length, 1);
  assert.equal(reports[0]!.scope, 'transaction');
  assert.equal(reports[0]!.timeoutMs, 200);
  assert.match(reports[0]!.waitingOn, /work outside the database .* after its last statement "insert into "sandbox_clocks"/);
  assert.match(reports[0]!.lastStatement ?? '', /^insert into "sandbox_clocks"/);

  release();
  const err = await outcome;
  assert.ok(err instanceof TransactionTimeoutError, `the held code fails at its next statement: ${String(err)}`);
  assert.equal(err.code, 'transaction_timeout');
  assert.equal((await db.selectFrom('sandbox_clocks').select('account_id').where('account_id', '=', 'acct_deadline').execute()).length, 0,
    'nothing of it ran outside the transaction');
});

test('a request scope rolled back at the deadline keeps failing its code, even once no other scope is open', async () => {
  // While no scope is open, the scopes' AsyncLocalStorage is switched off (request-transaction.ts):
  // the expired scope must keep it on, or its code would go on outside any transaction.
  const { db, scoping } = database;
  let release!: () => void;
  const stuck = new Promise<void>((resolve) => { release = resolve; });
  const scope = scoping.createScope(async () => {});
  const held = runInScope(scope, async () => {
    await db.insertInto('sandbox_clocks').values({ account_id: 'acct_scope_deadline', offset_ms: 1, updated_at: new Date().toISOString() }).execute();
    await stuck;
    assert.equal(inRequestScope(), false, 'the scope is no longer open');
    await db.insertInto('sandbox_clocks').values({ account_id: 'acct_scope_late', offset_ms: 1, updated_at: new Date().toISOString() }).execute();
  });
  const outcome = held.then(() => null, (err: unknown) => err);
  await new Promise((resolve) => setTimeout(resolve, 400));
  // Another request's scope opens and ends meanwhile: the last open one to end.
  const other = scoping.createScope(async () => {});
  await runInScope(other, () => db.selectFrom('sandbox_clocks').select('account_id').execute());
  await scoping.closeScope(other, true);

  release();
  const err = await outcome;
  assert.ok(err instanceof TransactionTimeoutError, `the held code fails at its next statement: ${String(err)}`);
  const rows = await db.selectFrom('sandbox_clocks').select('account_id').where('account_id', 'in', ['acct_scope_deadline', 'acct_scope_late']).execute();
  assert.deepEqual(rows, [], 'nothing of it ran, in its transaction or outside it');
});
