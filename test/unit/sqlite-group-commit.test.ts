// Group commit on SQLite (src/store/sqlite-group-commit.ts): transactions that queue for the
// connection share one COMMIT, yet each caller hears "committed" only once its change is
// durable, and a failing transaction takes nothing else down with it. A second connection
// on the same file plays "another process": it sees only what is committed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { openDatabase } from '../../src/store/db.ts';
import { inTransaction } from '../../src/store/transaction.ts';
import { runInScope } from '../../src/store/request-transaction.ts';

async function scratchStore(groupCommit?: { members: number; ageMs: number }) {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-group-commit-'));
  const database = openDatabase({ dataDir, groupCommit });
  await sql`create table scratch (id integer primary key, tag text not null unique)`.execute(database.db);
  const observer = new SQLite(join(dataDir, 'switchboard.db'), { readonly: true });
  const committed = (id: number) => observer.prepare('select count(*) as n from scratch where id = ?').get(id) as { n: number };
  return {
    database,
    isCommitted: (id: number) => committed(id).n === 1,
    rows: () => (observer.prepare('select id from scratch order by id').all() as Array<{ id: number }>).map((r) => r.id),
    async close() {
      observer.close();
      await database.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

test('concurrent transactions commit together; each answers only once durable; failures roll back alone', async () => {
  const store = await scratchStore();
  try {
    const { db } = store.database;
    const outcomes = await Promise.allSettled(Array.from({ length: 60 }, (_, i) => inTransaction(db, async (trx) => {
      await sql`insert into scratch (id, tag) values (${i}, ${`tag-${i}`})`.execute(trx);
      if (i === 10) throw new Error('the handler failed after its insert');
      // A constraint error inside a member: SQLite undoes the statement, we undo the member.
      if (i === 20) await sql`insert into scratch (id, tag) values (${0}, ${'again'})`.execute(trx);
      await sql`update scratch set tag = ${`done-${i}`} where id = ${i}`.execute(trx);
      assert.equal(store.isCommitted(i), false, 'not visible to others before it commits');
      return i;
    }).then((id) => {
      assert.ok(store.isCommitted(id), `transaction ${id} answered before it was committed`);
      return id;
    })));

    const failed = outcomes.flatMap((o, i) => (o.status === 'rejected' ? [i] : []));
    assert.deepEqual(failed, [10, 20]);
    const expected = Array.from({ length: 60 }, (_, i) => i).filter((i) => i !== 10 && i !== 20);
    assert.deepEqual(store.rows(), expected);
  } finally {
    await store.close();
  }
});

test('a plain query that ran inside an open group answers after that group commits', async () => {
  const store = await scratchStore();
  try {
    const { db } = store.database;
    let release!: () => void;
    const held = new Promise<void>((resolve) => { release = resolve; });
    // A transaction holds the connection (and its group) open while it waits.
    const slow = inTransaction(db, async (trx) => {
      await sql`insert into scratch (id, tag) values (1, 'slow')`.execute(trx);
      await held;
      return 1;
    });
    const next = inTransaction(db, async (trx) => {
      await sql`insert into scratch (id, tag) values (2, 'next')`.execute(trx);
    });
    const plain = sql`insert into scratch (id, tag) values (3, 'plain')`.execute(db).then(() => store.isCommitted(3));
    const read = sql<{ n: number }>`select count(*) as n from scratch`.execute(db).then((r) => ({ n: r.rows[0]!.n, durable: store.rows().length }));
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(store.rows(), [], 'nothing is committed while the first transaction is open');
    release();
    await Promise.all([slow, next]);
    assert.equal(await plain, true, 'a plain write answers only once committed');
    const seen = await read;
    assert.ok(seen.durable >= seen.n, `a read answered with ${seen.n} rows while only ${seen.durable} were durable`);
    assert.deepEqual(store.rows(), [1, 2, 3]);
  } finally {
    await store.close();
  }
});

test('request-wide transactions of a burst share a commit; one never joins a group other code waits on', async () => {
  // The group may be a minute old, not 10 ms: between the two requests a loaded machine
  // (CI) took longer than that, the group committed on its age, and the second began a new one.
  const store = await scratchStore({ members: 256, ageMs: 60_000 });
  try {
    const { db, scoping } = store.database;
    /** An idempotent request's transaction (request-transaction.ts) that inserts `id`. */
    const request = async (id: number) => {
      const scope = scoping.createScope(async () => {});
      await runInScope(scope, () => sql`insert into scratch (id, tag) values (${id}, ${`request-${id}`})`.execute(db));
      return scope;
    };
    // The second request begins while the first has ended and waits for its COMMIT: it joins.
    const first = await request(1);
    const firstCommitted = scoping.closeScope(first, true).then(() => store.isCommitted(1));
    const second = await request(2);
    assert.equal(store.isCommitted(1), false, 'the second request joined the first one\'s group');
    await scoping.closeScope(second, true);
    assert.equal(await firstCommitted, true, 'the first request heard "committed" only once durable');
    assert.deepEqual(store.rows(), [1, 2]);

    // A service's own transaction is in the open group: a request that might await such
    // code must not hold its commit back, so that group commits before the request begins.
    const plain = inTransaction(db, async (trx) => { await sql`insert into scratch (id, tag) values (3, 'plain')`.execute(trx); });
    const third = await request(4);
    assert.equal(store.isCommitted(3), true, 'the shared group committed before the request began');
    await plain;
    await scoping.closeScope(third, true);
    assert.deepEqual(store.rows(), [1, 2, 3, 4]);
  } finally {
    await store.close();
  }
});
