// Routing from queues to workers in the sandbox (issue 26, part 3), through HTTP with webhooks
// to a real receiver: the longest idle matching worker is offered the caller first, a worker
// who lets it ring out (the no-answer magic number) is missed and the next one gets it, the
// one who answers is connected (the caller leaves the queue `bridged`), and after the call the
// worker wraps up and becomes available again by a durable job.
import { describe, test } from 'node:test';
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

const workerEvents = (id: string) => eventsOf(sandbox.receiver, id).map((e) => [e.type, e.data.object.status]);

async function waitUntil<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('routing a waiting caller to workers', () => {
  test('longest idle first, a miss moves on to the next worker, connect, wrap-up, available again', async () => {
    const queue = ok(await api().post('/v1/queues', {
      name: 'routed', wait_flow: [{ pause: { seconds: 30 } }], routing: { required_skills: ['sales'] },
    }));
    assert.deepEqual(queue.routing, { strategy: 'longest_idle', required_skills: ['sales'], service_level_seconds: 20, on_missed: 'available' });
    // Created in this order, so idle longest in this order; the unskilled one is never offered.
    const unskilled = ok(await api().post('/v1/workers', { name: 'No skill', reach: MAGIC.staysUp, status: 'available' }));
    const ringsOut = ok(await api().post('/v1/workers', { name: 'Rings out', skills: ['sales'], reach: MAGIC.noAnswer, status: 'available', ring_timeout_seconds: 5 }));
    const answers = ok(await api().post('/v1/workers', { name: 'Answers', skills: ['sales', 'support'], reach: MAGIC.staysUp, status: 'available', wrap_up_seconds: 30 }));

    const caller = ok(await api().post('/v1/calls', { from: sandbox.from, to: MAGIC.staysUp, flow: [{ enqueue: { queue: 'routed' } }, { hangup: {} }] }));
    const [left] = await waitForFlowEvent(sandbox.receiver, caller.id, 'call.queue.left');
    assert.equal(left!.data.object.result, 'bridged');

    // The miss: offered, rang out, back to available behind the others.
    await sandbox.receiver.waitFor(() => eventsOf(sandbox.receiver, ringsOut.id).some((e) => e.type === 'worker.missed'));
    const missedEvents = eventsOf(sandbox.receiver, ringsOut.id);
    assert.deepEqual(missedEvents.slice(0, 2).map((e) => e.type), ['worker.offered', 'worker.missed']);
    const offer = missedEvents[0]!.data.object.offer;
    assert.equal(offer.caller_call_id, caller.id);
    assert.equal(offer.queue_id, queue.id);
    const missedLeg = ok(await api().get(`/v1/calls/${offer.call_id}`));
    assert.deepEqual([missedLeg.to, missedLeg.status], [MAGIC.noAnswer, 'no_answer']);
    assert.equal(missedEvents[1]!.data.object.offer, null);
    assert.equal(missedEvents[1]!.data.object.status, 'available');

    // The connect: offered, answered, busy on the leg that took the caller.
    await sandbox.receiver.waitFor(() => eventsOf(sandbox.receiver, answers.id).some((e) => e.type === 'worker.connected'));
    assert.deepEqual(workerEvents(answers.id).slice(0, 3), [['worker.offered', 'available'], ['worker.status_changed', 'busy'], ['worker.connected', 'busy']]);
    const busy = ok(await api().get(`/v1/workers/${answers.id}`));
    assert.equal(busy.status, 'busy');
    const leg = ok(await api().get(`/v1/calls/${busy.current_call_id}`));
    assert.deepEqual([leg.to, leg.status], [MAGIC.staysUp, 'in_progress']);
    const member = ok(await api().get(`/v1/queues/${queue.id}/members`)).data;
    assert.deepEqual(member, [], 'the caller left the queue');
    assert.deepEqual(eventsOf(sandbox.receiver, unskilled.id), [], 'a worker without the skill is never offered');

    // The caller hangs up: the worker's leg ends, the worker wraps up, then a job makes it available.
    ok(await api().post(`/v1/calls/${caller.id}/hangup`, {}));
    await sandbox.receiver.waitForEvent('call.completed', busy.current_call_id);
    // Wrap-up lasts 30 sandbox seconds, 0.3 s here: a poll from a starved process may see it
    // over already (CI). Its events below say it happened, in order, whatever the poll saw.
    const wrapping = await waitUntil('wrap_up', async () => ok(await api().get(`/v1/workers/${answers.id}`)), (w) => w.status !== 'busy');
    assert.ok(['wrap_up', 'available'].includes(wrapping.status), wrapping.status);
    assert.equal(wrapping.current_call_id, null);
    await waitUntil('available after wrap-up', async () => ok(await api().get(`/v1/workers/${answers.id}`)), (w) => w.status === 'available');
    await sandbox.receiver.waitFor(() => eventsOf(sandbox.receiver, answers.id).length >= 5);
    assert.deepEqual(workerEvents(answers.id).slice(3), [['worker.status_changed', 'wrap_up'], ['worker.status_changed', 'available']]);
  });
});

describe('a caller who hangs up while offered', () => {
  test('leaves with hangup; the offer rings out as a miss and the caller is not offered again', async () => {
    ok(await api().post('/v1/queues', { name: 'abandoned', wait_flow: [{ pause: { seconds: 600 } }], routing: { required_skills: ['abandon'], on_missed: 'offline' } }));
    const slow = ok(await api().post('/v1/workers', { name: 'Slow', skills: ['abandon'], reach: MAGIC.noAnswer, status: 'available', ring_timeout_seconds: 120 }));
    const caller = ok(await api().post('/v1/calls', { from: sandbox.from, to: MAGIC.staysUp, flow: [{ enqueue: { queue: 'abandoned' } }, { hangup: {} }] }));
    await sandbox.receiver.waitFor(() => eventsOf(sandbox.receiver, slow.id).some((e) => e.type === 'worker.offered'));
    ok(await api().post(`/v1/calls/${caller.id}/hangup`, {}));
    const [left] = await waitForFlowEvent(sandbox.receiver, caller.id, 'call.queue.left');
    assert.equal(left!.data.object.result, 'hangup');
    await sandbox.receiver.waitFor(() => eventsOf(sandbox.receiver, slow.id).length >= 3);
    assert.deepEqual(workerEvents(slow.id), [['worker.offered', 'available'], ['worker.missed', 'available'], ['worker.status_changed', 'offline']],
      'on_missed offline: the worker who let it ring out goes offline');
  });
});

describe('queue statistics', () => {
  test('GET /v1/queues/{id}/stats matches a hand count of answered and abandoned callers and the workers by status', async () => {
    const queue = ok(await api().post('/v1/queues', { name: 'counted', wait_flow: [{ pause: { seconds: 600 } }], routing: { required_skills: ['count'], service_level_seconds: 3600 } }));
    ok(await api().post('/v1/workers', { name: 'Counted offline', skills: ['count'], reach: MAGIC.staysUp }));
    ok(await api().post('/v1/workers', { name: 'Not counted', reach: MAGIC.staysUp, status: 'available' }));
    // Nobody can take the first caller: it hangs up (abandoned).
    const gaveUp = ok(await api().post('/v1/calls', { from: sandbox.from, to: MAGIC.staysUp, flow: [{ enqueue: { queue: 'counted' } }, { hangup: {} }] }));
    await waitForFlowEvent(sandbox.receiver, gaveUp.id, 'call.queue.joined');
    const waitingNow = ok(await api().get(`/v1/queues/${queue.id}/stats`));
    assert.equal(waitingNow.waiting, 1);
    ok(await api().post(`/v1/calls/${gaveUp.id}/hangup`, {}));
    await waitForFlowEvent(sandbox.receiver, gaveUp.id, 'call.queue.left');

    // A worker comes: the next caller is answered, talks, hangs up.
    const taker = ok(await api().post('/v1/workers', { name: 'Taker', skills: ['count'], reach: MAGIC.staysUp, status: 'available', wrap_up_seconds: 0 }));
    const served = ok(await api().post('/v1/calls', { from: sandbox.from, to: MAGIC.staysUp, flow: [{ enqueue: { queue: 'counted' } }, { hangup: {} }] }));
    const [left] = await waitForFlowEvent(sandbox.receiver, served.id, 'call.queue.left');
    assert.equal(left!.data.object.result, 'bridged');
    ok(await api().post(`/v1/calls/${served.id}/hangup`, {}));
    await sandbox.receiver.waitForEvent('call.completed', served.id);
    await waitUntil('the taker available again', async () => ok(await api().get(`/v1/workers/${taker.id}`)), (w) => w.status === 'available');

    const stats = ok(await api().get(`/v1/queues/${queue.id}/stats?window_minutes=60`));
    assert.ok(stats.average_handle_seconds >= 0);
    assert.deepEqual({ ...stats, average_handle_seconds: 0 }, {
      object: 'queue_stats', queue_id: queue.id, window_minutes: 60, waiting: 0, oldest_wait_seconds: 0,
      answered: 1, abandoned: 1, abandonment_rate: 0.5, average_speed_of_answer_seconds: left!.data.object.wait_seconds,
      service_level_seconds: 3600, service_level: 0.5, average_handle_seconds: 0,
      workers: { available: 1, busy: 0, wrap_up: 0, offline: 1 },
    });
    assert.equal((await api().get(`/v1/queues/${queue.id}/stats?window_minutes=0`)).status, 400);
    assert.equal((await api().get('/v1/queues/queue_01jd8x0v6kf5b9w3t2q1r0p9n8/stats')).status, 404);
    assert.equal((await sandbox.server.as(sandbox.account.keys.live).get(`/v1/queues/${queue.id}/stats`)).status, 404);
  });
});
