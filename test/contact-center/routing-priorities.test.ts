// Routing from queues to workers in the sandbox (issue 26, "Routing from queues"), the orders
// routing-sandbox.test.ts leaves out: which waiting caller is offered first (the enqueue verb's
// priority, lower first, then the longest waiting), which worker a round_robin queue picks
// (never offered first, then the least recently offered) where longest_idle would pick by idle
// time, and a queue's worker_ids keeping its callers from every other worker. Each step waits
// for the offer it caused before the next, so every sequence asserted is exact.
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

async function waitUntil<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The callers offered to this worker so far, in order (offer.caller_call_id of its worker.offered events). */
const offeredTo = (workerId: string): string[] => eventsOf(sandbox.receiver, workerId)
  .filter((e) => e.type === 'worker.offered').map((e) => e.data.object.offer.caller_call_id);

/** Waits until the worker has answered its offer number `n` (0-based; worker.connected) and returns the caller it took. */
async function connects(workerId: string, n: number): Promise<string> {
  // Deliveries may arrive out of order: wait for both the answer and the offer it answered.
  await sandbox.receiver.waitFor(() => eventsOf(sandbox.receiver, workerId).filter((e) => e.type === 'worker.connected').length > n
    && offeredTo(workerId).length > n, 30_000);
  const offered = offeredTo(workerId);
  assert.equal(offered.length, n + 1, 'one offer per worker at a time');
  return offered[n]!;
}

/**
 * The worker's events as [type, status, offered caller], once at least `count` have arrived with
 * none missing between them (deliveries may arrive out of order; their sequence has no gaps).
 */
async function eventsInOrder(workerId: string, count: number): Promise<Array<[string, string, string | null]>> {
  const all = () => eventsOf(sandbox.receiver, workerId);
  await sandbox.receiver.waitFor(() => all().length >= count && all().every((e, i) => e.sequence === i + 1));
  return all().map((e) => [e.type, e.data.object.status, e.data.object.offer?.caller_call_id ?? null]);
}

const status = async (workerId: string): Promise<string> => ok(await api().get(`/v1/workers/${workerId}`)).status;
const untilStatus = (workerId: string, wanted: string) => waitUntil(`${workerId} ${wanted}`, () => status(workerId), (s) => s === wanted);
const setStatus = async (workerId: string, to: 'available' | 'offline') => ok(await api().patch(`/v1/workers/${workerId}`, { status: to }));

async function worker(name: string, skills: string[], extra: Record<string, unknown> = {}) {
  return ok(await api().post('/v1/workers', { name, skills, reach: MAGIC.staysUp, wrap_up_seconds: 0, ...extra }));
}

/**
 * A caller that waits in the queue (joined before this returns, so callers wait in the order placed).
 * Its time_limit is the longest allowed (24 sandbox hours, 864 s here): the default 4 hours is
 * 144 s of real time at the test server's time scale, and starved at nice 19 on a loaded machine
 * the six callers' test took 160 s, so the callers still waiting were hung up (time_limit_reached).
 */
async function caller(queue: string, priority?: number): Promise<string> {
  const enqueue = priority === undefined ? { queue } : { queue, priority };
  const call = ok(await api().post('/v1/calls', { from: sandbox.from, to: MAGIC.staysUp, time_limit: 86_400, flow: [{ enqueue }, { hangup: {} }] }));
  await waitForFlowEvent(sandbox.receiver, call.id, 'call.queue.joined');
  return call.id;
}

async function hangUp(callId: string): Promise<void> {
  ok(await api().post(`/v1/calls/${callId}/hangup`, {}));
  await waitForFlowEvent(sandbox.receiver, callId, 'call.queue.left');
}

describe('which waiting caller is offered first', () => {
  test('six callers of two priorities: lower priority first, then the longest waiting, as workers come free one at a time', async () => {
    const queue = ok(await api().post('/v1/queues', { name: 'prioritised', wait_flow: [{ pause: { seconds: 600 } }], routing: { required_skills: ['prio'] } }));
    // Offline while the callers arrive: nobody can take them, so all six wait.
    const first = await worker('First', ['prio'], { wrap_up_seconds: 60 });
    const second = await worker('Second', ['prio']);
    const third = await worker('Third', ['prio', 'other']);

    // Alternating priorities in arrival order; the enqueue verb's default is 500.
    const c = [await caller('prioritised'), await caller('prioritised', 100), await caller('prioritised', 500),
      await caller('prioritised', 100), await caller('prioritised', 900), await caller('prioritised', 100)];
    const members = ok(await api().get(`/v1/queues/${queue.id}/members`)).data;
    assert.equal(members.length, 6);
    assert.deepEqual(offeredTo(first.id), [], 'an offline worker is not offered');

    const order: string[] = [];
    // The workers come available one at a time: each takes the best caller still waiting.
    for (const w of [first, second, third]) {
      await setStatus(w.id, 'available');
      order.push(await connects(w.id, 0));
    }
    assert.deepEqual(order, [c[1], c[3], c[5]], 'the three priority-100 callers, longest waiting first');

    // First's caller hangs up: First wraps up for 60 simulated seconds and is offered nobody
    // meanwhile. That is 0.6 s of real time here: a poll from a starved process may find it over
    // already, First offered c[0] or even busy with it (CI). First's events, all of them in
    // order, prove the wrap-up and that no offer came before it ended, whatever a poll would see.
    await hangUp(c[1]!);
    await sandbox.receiver.waitFor(() => eventsOf(sandbox.receiver, first.id).some((e) => e.type === 'worker.status_changed' && e.data.object.status === 'wrap_up'));
    // Ends the wrap-up now if its 0.6 s have not passed yet.
    ok(await api().post('/v1/sandbox/clock/advance', { seconds: 60 }));
    order.push(await connects(first.id, 1));
    assert.deepEqual(await eventsInOrder(first.id, 9), [
      ['worker.status_changed', 'available', null],
      ['worker.offered', 'available', c[1]],
      ['worker.status_changed', 'busy', null],
      ['worker.connected', 'busy', null],
      ['worker.status_changed', 'wrap_up', null],
      ['worker.status_changed', 'available', null],
      ['worker.offered', 'available', c[0]],
      ['worker.status_changed', 'busy', null],
      ['worker.connected', 'busy', null],
    ], 'First wrapped up after its call, was offered nobody while it did, and was offered the next caller once available');

    // Second and Third come free in turn (no wrap-up) and take the rest.
    await hangUp(c[3]!);
    order.push(await connects(second.id, 1));
    await hangUp(c[5]!);
    order.push(await connects(third.id, 1));

    assert.deepEqual(order, [c[1], c[3], c[5], c[0], c[2], c[4]],
      'priority 100 by arrival, then the default 500 and the explicit 500 by arrival, then 900');
    assert.deepEqual([offeredTo(first.id), offeredTo(second.id), offeredTo(third.id)], [[c[1], c[0]], [c[3], c[2]], [c[5], c[4]]]);
    assert.deepEqual(ok(await api().get(`/v1/queues/${queue.id}/members`)).data, [], 'nobody waits any more');

    for (const id of [c[0], c[2], c[4]]) await hangUp(id!);
    const priorities: number[] = [];
    for (const id of c) {
      const [left] = await waitForFlowEvent(sandbox.receiver, id, 'call.queue.left');
      assert.equal(left!.data.object.result, 'bridged', `${id} was bridged`);
      priorities.push(left!.data.object.priority);
    }
    assert.deepEqual(priorities, [500, 100, 500, 100, 900, 100]);
    for (const w of [first, second, third]) {
      await waitUntil(`${w.name} out of its call`, () => status(w.id), (s) => s !== 'busy');
      assert.equal(offeredTo(w.id).length, 2, 'each caller offered exactly once');
    }
  });
});

describe('round_robin against longest_idle', () => {
  /**
   * One caller at a time: before it arrives the three workers are made available again in the
   * order A, B, C (offline, then available), so A has always been idle the longest and B next;
   * the caller is served, hangs up, and its worker is available again. Returns who took each.
   */
  async function serveInTurn(queue: string, workers: Array<{ id: string; name: string }>, callers: number): Promise<string[]> {
    const took: string[] = [];
    for (let i = 0; i < callers; i++) {
      for (const w of workers) {
        await setStatus(w.id, 'offline');
        await setStatus(w.id, 'available');
      }
      const idle = ok(await api().get('/v1/workers?status=available&limit=100')).data
        .filter((w: any) => workers.some((x) => x.id === w.id))
        .sort((a: any, b: any) => a.last_idle_at.localeCompare(b.last_idle_at)).map((w: any) => w.name);
      assert.deepEqual(idle, workers.map((w) => w.name), 'idle longest in the order A, B, C');
      const id = await caller(queue);
      const [left] = await waitForFlowEvent(sandbox.receiver, id, 'call.queue.left');
      assert.equal(left!.data.object.result, 'bridged');
      // Webhooks of different resources arrive in any order: wait for the worker.offered itself.
      await sandbox.receiver.waitFor(() => workers.some((w) => offeredTo(w.id).includes(id)));
      const offered = workers.filter((w) => offeredTo(w.id).includes(id));
      assert.equal(offered.length, 1, 'one worker was offered the caller');
      took.push(offered[0]!.name);
      ok(await api().post(`/v1/calls/${id}/hangup`, {}));
      await untilStatus(offered[0]!.id, 'available');
    }
    return took;
  }

  test('round_robin: never offered first, then the least recently offered, whatever the idle time', async () => {
    const queue = ok(await api().post('/v1/queues', { name: 'in-turn', wait_flow: [{ pause: { seconds: 600 } }], routing: { strategy: 'round_robin', required_skills: ['rr'] } }));
    assert.equal(queue.routing.strategy, 'round_robin');
    const workers = [await worker('A', ['rr']), await worker('B', ['rr']), await worker('C', ['rr'])];
    assert.deepEqual(await serveInTurn('in-turn', workers, 5), ['A', 'B', 'C', 'A', 'B']);
  });

  test('longest_idle, the same arrivals: the longest idle worker every time', async () => {
    ok(await api().post('/v1/queues', { name: 'by-idle', wait_flow: [{ pause: { seconds: 600 } }], routing: { strategy: 'longest_idle', required_skills: ['li'] } }));
    const workers = [await worker('A', ['li']), await worker('B', ['li']), await worker('C', ['li'])];
    assert.deepEqual(await serveInTurn('by-idle', workers, 5), ['A', 'A', 'A', 'A', 'A']);
  });
});

describe('worker_ids', () => {
  test('a queue with worker_ids offers its callers only to those of them with the skills', async () => {
    // Outside the list, skilled and idle the longest: would be offered first without worker_ids.
    const outsider = await worker('Outsider', ['pick'], { status: 'available' });
    const unskilled = await worker('Listed, no skill', ['other'], { status: 'available' });
    const listed = await worker('Listed', ['pick']);
    const queue = ok(await api().post('/v1/queues', {
      name: 'listed-only', wait_flow: [{ pause: { seconds: 600 } }], routing: { required_skills: ['pick'], worker_ids: [unskilled.id, listed.id] },
    }));
    assert.deepEqual(queue.routing.worker_ids, [unskilled.id, listed.id]);

    const id = await caller('listed-only');
    // The caller keeps waiting while only workers outside the list (or without the skill) are free.
    const waiting = ok(await api().get(`/v1/queues/${queue.id}/stats`));
    assert.equal(waiting.waiting, 1);
    assert.deepEqual(waiting.workers, { available: 0, busy: 0, wrap_up: 0, offline: 1 }, 'the queue counts only its listed workers with the skills');
    await setStatus(listed.id, 'available');
    const [left] = await waitForFlowEvent(sandbox.receiver, id, 'call.queue.left');
    assert.equal(left!.data.object.result, 'bridged');
    await sandbox.receiver.waitFor(() => offeredTo(listed.id).length > 0);
    assert.deepEqual(offeredTo(listed.id), [id]);
    assert.deepEqual(offeredTo(outsider.id), [], 'a worker outside worker_ids is never offered');
    assert.deepEqual(offeredTo(unskilled.id), [], 'a listed worker without the skills is never offered');
    ok(await api().post(`/v1/calls/${id}/hangup`, {}));
    await untilStatus(listed.id, 'available');
  });
});
