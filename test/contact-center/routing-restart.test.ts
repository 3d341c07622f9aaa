// Routing survives a restart (issue 26, part 3): a worker's wrap-up is a durable job, so a
// server stopped while the worker wraps up does not leave it in wrap_up for ever; the next
// process makes it available and offers it the caller who waited meanwhile.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../helpers/server.ts';
import { startServer } from '../../src/main.ts';
import { MAGIC, eventsOf } from '../voice/voice-helpers.ts';
import { subscribeAll } from '../helpers/subscribe.ts';
import { waitForFlowEvent } from '../voice/flow-helpers.ts';

const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

test('a restart during wrap-up: the next server ends the wrap-up and routes the next caller to the worker', async () => {
  const t = await startTestServer();
  cleanups.push(() => t.store.drop());
  const acct = await t.createAccount('scale');
  const receiver = await subscribeAll(t, acct.keys.sandbox);
  cleanups.push(() => receiver.close());
  const api = t.as(acct.keys.sandbox);
  const from = acct.numbers.sandbox[0]!;
  const ok = (res: { status: number; body: any }) => {
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body;
  };

  ok(await api.post('/v1/queues', { name: 'restart', wait_flow: [{ pause: { seconds: 600 } }], routing: { required_skills: [] } }));
  // 500 simulated seconds of wrap-up: 5 s of real time at the tests' time scale, to span the restart.
  const worker = ok(await api.post('/v1/workers', { name: 'Restarted', reach: MAGIC.staysUp, status: 'available', wrap_up_seconds: 500 }));
  const first = ok(await api.post('/v1/calls', { from, to: MAGIC.staysUp, flow: [{ enqueue: { queue: 'restart' } }, { hangup: {} }] }));
  await receiver.waitFor(() => eventsOf(receiver, worker.id).some((e) => e.type === 'worker.connected'));
  ok(await api.post(`/v1/calls/${first.id}/hangup`, {}));
  await receiver.waitFor(() => eventsOf(receiver, worker.id).some((e) => e.data.object.status === 'wrap_up'));
  // A second caller waits while the worker wraps up.
  const second = ok(await api.post('/v1/calls', { from, to: MAGIC.staysUp, flow: [{ enqueue: { queue: 'restart' } }, { hangup: {} }] }));
  await waitForFlowEvent(receiver, second.id, 'call.queue.joined');
  assert.equal(ok(await api.get(`/v1/workers/${worker.id}`)).status, 'wrap_up', 'still wrapping up when the server stops');
  await t.server.close();

  const next = await startServer(t.config, { logger: false });
  cleanups.push(() => next.close());
  const [left] = await waitForFlowEvent(receiver, second.id, 'call.queue.left');
  assert.equal(left!.data.object.result, 'bridged');
  await receiver.waitFor(() => eventsOf(receiver, worker.id).length >= 8);
  const statuses = eventsOf(receiver, worker.id).map((e) => e.type === 'worker.status_changed' ? e.data.object.status : e.type);
  assert.deepEqual(statuses.slice(0, 8), ['worker.offered', 'busy', 'worker.connected', 'wrap_up', 'available', 'worker.offered', 'busy', 'worker.connected']);
  const offers = eventsOf(receiver, worker.id).filter((e) => e.type === 'worker.offered').map((e) => e.data.object.offer.caller_call_id);
  assert.deepEqual(offers, [first.id, second.id]);
});
