// Routing under concurrency (issue 26, part 3), through HTTP on the sandbox, on either
// database: 12 callers join a routed queue at once while 4 workers take them; as callers hang
// up, workers come back and take the next. Every caller is offered once and bridged once, and
// no worker is ever offered a second caller while one is ringing or talking.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useSandboxAccount } from '../helpers/sandbox-account.ts';
import { MAGIC, eventsOf } from '../voice/voice-helpers.ts';
import { waitForFlowEvent } from '../voice/flow-helpers.ts';

const sandbox = useSandboxAccount();
const api = () => sandbox.api();

function ok(res: { status: number; body: any }) {
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

test('12 callers, 4 workers: each caller offered and bridged exactly once, one offer per worker at a time', async () => {
  ok(await api().post('/v1/queues', { name: 'rush', wait_flow: [{ pause: { seconds: 600 } }], routing: { required_skills: [] } }));
  const workers = await Promise.all(Array.from({ length: 4 }, (_, i) =>
    api().post('/v1/workers', { name: `w${i}`, reach: MAGIC.staysUp, status: 'available', wrap_up_seconds: 0 }).then(ok)));
  const callers: string[] = (await Promise.all(Array.from({ length: 12 }, () =>
    api().post('/v1/calls', { from: sandbox.from, to: MAGIC.staysUp, flow: [{ enqueue: { queue: 'rush' } }, { hangup: {} }] }).then(ok)))).map((c) => c.id);

  const hungUp = new Set<string>();
  const connectedCallers = () => workers.flatMap((w) => eventsOf(sandbox.receiver, w.id).filter((e) => e.type === 'worker.offered').map((e) => e.data.object.offer.caller_call_id as string));
  // Each round: wait for the callers connected so far, then hang them up so their workers take the next.
  for (let round = 0; round < 20 && hungUp.size < callers.length; round++) {
    await sandbox.receiver.waitFor(() => {
      const connected = workers.flatMap((w) => eventsOf(sandbox.receiver, w.id).filter((e) => e.type === 'worker.connected'));
      return connected.length >= Math.min(callers.length, hungUp.size + workers.length);
    }, 60_000);
    const talking = connectedCallers().filter((id) => !hungUp.has(id));
    for (const id of talking) {
      await waitForFlowEvent(sandbox.receiver, id, 'call.queue.left');
      ok(await api().post(`/v1/calls/${id}/hangup`, {}));
      hungUp.add(id);
    }
  }
  assert.equal(hungUp.size, callers.length, 'every caller reached a worker');

  const offered = connectedCallers();
  assert.deepEqual([...offered].sort(), [...callers].sort(), 'each caller offered exactly once');
  for (const id of callers) {
    await sandbox.receiver.waitForEvent('call.completed', id);
    const left = [...new Map(sandbox.receiver.events().filter((e) => e.type === 'call.queue.left' && e.data.object.call_id === id).map((e) => [e.id, e])).values()];
    assert.deepEqual(left.map((e) => e.data.object.result), ['bridged'], `${id} left once, bridged`);
  }
  for (const w of workers) {
    // Per worker, in order: offered, busy, connected, available, offered, ... never two offers in a row.
    const types = eventsOf(sandbox.receiver, w.id).map((e) => e.type === 'worker.status_changed' ? e.data.object.status : e.type);
    for (let i = 0; i + 1 < types.length; i++) {
      if (types[i] === 'worker.offered') assert.equal(types[i + 1], 'busy', `${w.id}: ${types.join(', ')}`);
    }
    assert.ok(types.filter((t) => t === 'worker.offered').length >= 1, `${w.id} took callers`);
  }
});
