// The one state machine helper every resource's states.ts uses (src/platform/state-machine.ts),
// driven against the real store (SQLite or PostgreSQL): the table decides, an illegal move is a
// 409 problem, a move stamps and writes in one conditional UPDATE, and of two transactions that
// move the same row from the same state, exactly one wins.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Kysely } from 'kysely';
import { openDatabase, type Database } from '../../src/store/db.ts';
import { inTransaction } from '../../src/store/transaction.ts';
import { defineStateMachine } from '../../src/platform/state-machine.ts';
import { Problem } from '../../src/platform/problems.ts';
import { createTestStore, type TestStore } from '../helpers/database.ts';

type Door = 'closed' | 'open' | 'locked' | 'gone';
interface DoorRow { id: string; status: Door; opened_at: string | null; note: string | null; updated_at: string }

const TRANSITIONS: Record<Door, readonly Door[]> = {
  closed: ['open', 'locked', 'gone'],
  open: ['closed'],
  locked: ['closed'],
  gone: [],
};

const DOORS = defineStateMachine<Door, DoorRow>({
  resource: 'Door',
  table: 'sm_doors',
  transitions: TRANSITIONS,
  allows: (row, to) => !(to === 'gone' && row.note === 'load-bearing'),
  stamp: (_row, to, now, set) => (to === 'open' ? { ...set, opened_at: now } : set),
});

let store: TestStore;
let database: Database;
let db: Kysely<any>;

before(async () => {
  store = await createTestStore();
  database = openDatabase({ databaseUrl: store.databaseUrl, dataDir: store.dataDir });
  db = database.db as unknown as Kysely<any>;
  await db.schema.createTable('sm_doors')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('opened_at', 'text')
    .addColumn('note', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
});

after(async () => {
  await database.close();
  await store.drop();
});

let n = 0;
async function door(status: Door = 'closed', note: string | null = null): Promise<DoorRow> {
  const row: DoorRow = { id: `door_${++n}`, status, opened_at: null, note, updated_at: '2026-01-01T00:00:00.000Z' };
  await db.insertInto('sm_doors').values(row).execute();
  return row;
}

const stored = async (id: string): Promise<DoorRow> => (await db.selectFrom('sm_doors').selectAll().where('id', '=', id).executeTakeFirstOrThrow()) as DoorRow;

async function problemOf(work: Promise<unknown>): Promise<Problem> {
  const err = await work.then(() => undefined, (e: unknown) => e);
  assert.ok(err instanceof Problem, `expected a Problem, got ${String(err)}`);
  return err;
}

describe('defineStateMachine', () => {
  test('reads its table: allowed moves, final states, the extra rule', () => {
    assert.equal(DOORS.can('closed', 'open'), true);
    assert.equal(DOORS.can('open', 'locked'), false);
    assert.equal(DOORS.isFinal('gone'), true);
    assert.equal(DOORS.isFinal('open'), false);
    assert.doesNotThrow(() => DOORS.assert({ id: 'd', status: 'closed', opened_at: null, note: null, updated_at: '' }, 'gone'));
    const refused = (() => { try { DOORS.assert({ id: 'd', status: 'closed', opened_at: null, note: 'load-bearing', updated_at: '' }, 'gone'); } catch (e) { return e; } })();
    assert.ok(refused instanceof Problem);
    assert.equal(refused.code, 'invalid_state_transition');
  });

  test('a table of next-state-to-event maps reads the same way', () => {
    const m = defineStateMachine<'a' | 'b', { id: string; status: 'a' | 'b' }>({ resource: 'Thing', transitions: { a: { b: 'x.moved' }, b: {} } });
    assert.equal(m.can('a', 'b'), true);
    assert.equal(m.can('b', 'a'), false);
    assert.equal(m.isFinal('b'), true);
  });

  test('a move checks, stamps and writes the row; the row returned is the row stored', async () => {
    const row = await door();
    const now = '2026-02-03T04:05:06.000Z';
    const moved = await inTransaction(database.db, (trx) => DOORS.move(trx, row, 'open', { now, set: { note: 'aired' } }));
    assert.deepEqual(moved, { id: row.id, status: 'open', opened_at: now, note: 'aired', updated_at: now });
    assert.deepEqual(await stored(row.id), moved);
  });

  test('an illegal move is a 409 invalid_state_transition and changes nothing', async () => {
    const row = await door('open');
    const problem = await problemOf(inTransaction(database.db, (trx) => DOORS.move(trx, row, 'locked', { now: '2026-02-03T00:00:00.000Z' })));
    assert.equal(problem.code, 'invalid_state_transition');
    assert.equal(problem.status, 409);
    assert.equal(problem.message, `Door ${row.id} is open and cannot become locked.`);
    assert.equal((await stored(row.id)).status, 'open');
  });

  test('a custom refusal replaces the generic problem', async () => {
    const m = defineStateMachine<Door, DoorRow>({
      resource: 'Door', table: 'sm_doors', transitions: TRANSITIONS,
      refusal: (r, to) => (to === 'closed' ? new Problem('conflict', `Door ${r.id} is already shut.`) : undefined),
    });
    const row = await door('gone');
    assert.equal((await problemOf(inTransaction(database.db, (trx) => m.move(trx, row, 'closed', { now: 'x' })))).code, 'conflict');
    assert.equal((await problemOf(inTransaction(database.db, (trx) => m.move(trx, row, 'open', { now: 'x' })))).code, 'invalid_state_transition');
  });

  test('a move from a status the row no longer has is a 409 conflict, and nothing is written', async () => {
    const row = await door();
    await db.updateTable('sm_doors').set({ status: 'locked' }).where('id', '=', row.id).execute();
    const problem = await problemOf(inTransaction(database.db, (trx) => DOORS.move(trx, row, 'open', { now: '2026-02-03T00:00:00.000Z' })));
    assert.equal(problem.code, 'conflict');
    assert.equal(problem.status, 409);
    const now = await stored(row.id);
    assert.equal(now.status, 'locked');
    assert.equal(now.opened_at, null);
  });

  test('a `where` narrows the move further', async () => {
    const row = await door('closed', 'keep');
    const problem = await problemOf(inTransaction(database.db, (trx) => DOORS.move(trx, row, 'open', { now: 'x', where: (u) => u.where('note', '=', 'other') })));
    assert.equal(problem.code, 'conflict');
    assert.equal((await stored(row.id)).status, 'closed');
  });

  test('the race: two transactions move the same row from the same state; exactly one wins', async () => {
    for (let round = 0; round < 5; round++) {
      const row = await door();
      // Both read `closed`; each tries its own move in its own transaction, at the same time.
      let release!: () => void;
      const gate = new Promise<void>((resolve) => { release = resolve; });
      const racer = (to: Door, note: string) => inTransaction(database.db, async (trx) => {
        await gate;
        return DOORS.move(trx, row, to, { now: `2026-03-0${round + 1}T00:00:00.000Z`, set: { note } });
      });
      const results = Promise.allSettled([racer('open', 'first'), racer('locked', 'second')]);
      release();
      const [a, b] = await results;
      const won = [a, b].filter((r) => r.status === 'fulfilled') as PromiseFulfilledResult<DoorRow>[];
      const lost = [a, b].filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
      assert.equal(won.length, 1, `round ${round}: one racer moves the row (${JSON.stringify([a, b])})`);
      assert.equal(lost.length, 1);
      assert.ok(lost[0]!.reason instanceof Problem);
      assert.equal(lost[0]!.reason.code, 'conflict');
      const final = await stored(row.id);
      assert.equal(final.status, won[0]!.value.status, 'the stored row is the winner\'s');
      assert.equal(final.note, won[0]!.value.note);
    }
  });
});
