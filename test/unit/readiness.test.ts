// /readyz's decision (src/platform/readiness.ts) for the case the HTTP tests cannot stage:
// the deadline rolls a held SQLite writer back on time, so "held past the deadline" means the
// deadline itself failed (its timer starved by a blocked event loop): not ready, say so at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkReadiness } from '../../src/platform/readiness.ts';
import type { Database } from '../../src/store/db.ts';

function fakeDatabase(heldMs: number | null): Database {
  const read = { execute: async () => [] };
  const chain = { select: () => ({ limit: () => read }) };
  return {
    engine: 'sqlite',
    location: 'fake',
    db: { selectFrom: () => chain } as unknown as Database['db'],
    scoping: { deadlineMs: 5000, writerHeldMs: () => heldMs } as unknown as Database['scoping'],
    close: async () => {},
  };
}

test('the SQLite writer held past the deadline: 503 unavailable, with how long', async () => {
  const readiness = await checkReadiness(fakeDatabase(7250), false);
  assert.equal(readiness.status, 'unavailable');
  assert.equal('reason' in readiness && readiness.reason, 'the database writer has been held for 7250 ms, past the 5000 ms transaction deadline');
});

test('the writer held within the deadline, or free: ready when the read answers', async () => {
  assert.deepEqual(await checkReadiness(fakeDatabase(1200), false), { status: 'ready', database: 'sqlite' });
  assert.deepEqual(await checkReadiness(fakeDatabase(null), false), { status: 'ready', database: 'sqlite' });
});

test('shutting down: draining, whatever the database', async () => {
  const readiness = await checkReadiness(fakeDatabase(null), true);
  assert.equal(readiness.status, 'draining');
});
