// Call queues through HTTP on the sandbox: the Queue resource, callers of different
// priorities taken in order, a timeout, a full queue, a caller hanging up while waiting, a
// caller taken out with DELETE, a `leave` in the wait flow, and the dequeue verb bridging an
// agent's call. Webhooks and action_urls reach real receivers on 127.0.0.1.
// issue 25: queues (resource, enqueue/dequeue/leave verbs, call.queue.joined/left).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MAGIC, ORDINARY } from './voice-helpers.ts';
import { waitForFlow, waitForFlowEvent } from './flow-helpers.ts';
import { useSandboxAccount } from '../helpers/sandbox-account.ts';

const sandbox = useSandboxAccount({}, { flowServer: true });
const api = () => sandbox.api();

async function createQueue(body: Record<string, unknown>): Promise<any> {
  const res = await api().post('/v1/queues', body);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

/** A call whose flow runs `flow` once answered; resolves when it is waiting in its queue. */
async function caller(flow: unknown[], opts: { joins?: boolean } = {}): Promise<string> {
  const res = await api().post('/v1/calls', { from: sandbox.from, to: MAGIC.staysUp, flow });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  if (opts.joins !== false) await waitForFlowEvent(sandbox.receiver, res.body.id, 'call.queue.joined');
  return res.body.id;
}

const logOf = async (id: string) => (await api().get(`/v1/calls/${id}/flow`)).body.log.map((e: any) => [e.verb, e.result]);
const enqueueEntry = async (id: string) => (await api().get(`/v1/calls/${id}/flow`)).body.log.find((e: any) => e.verb === 'enqueue');

describe('the queue resource', () => {
  test('create, list, fetch, change and delete; names are unique per account and mode', async () => {
    const queue = await createQueue({ name: 'billing', max_size: 5, max_wait_seconds: 120, wait_flow: [{ say: { text: 'Hold on.' } }, { pause: { seconds: 5 } }] });
    assert.match(queue.id, /^queue_/);
    assert.equal(queue.object, 'queue');
    assert.deepEqual([queue.current_size, queue.average_wait_seconds, queue.oldest_wait_seconds], [0, 0, 0]);
    assert.deepEqual(queue.wait_flow, [{ say: { text: 'Hold on.', loop: 1 } }, { pause: { seconds: 5 } }], 'stored with its defaults filled in');

    const again = await api().post('/v1/queues', { name: 'billing' });
    assert.equal(again.status, 409);
    assert.equal(again.body.code, 'queue_name_taken');
    // The live mode has its own names.
    const live = await sandbox.server.as(sandbox.account.keys.live).post('/v1/queues', { name: 'billing' });
    assert.equal(live.status, 200, JSON.stringify(live.body));

    const both = await api().post('/v1/queues', { name: 'both', wait_flow: [{ pause: { seconds: 1 } }], wait_url: `${sandbox.flowServer.url}/wait` });
    assert.equal(both.status, 400);
    assert.equal(both.body.errors[0].field, 'wait_url');

    const listed = await api().get('/v1/queues?name=billing');
    assert.deepEqual(listed.body.data.map((q: any) => q.id), [queue.id]);
    assert.equal((await api().get(`/v1/queues/${queue.id}`)).body.name, 'billing');
    assert.equal((await sandbox.server.as(sandbox.account.keys.live).get(`/v1/queues/${queue.id}`)).status, 404, 'a sandbox queue is not seen live');

    const changed = await api().patch(`/v1/queues/${queue.id}`, { max_size: 9, max_wait_seconds: null, wait_flow: [], wait_url: `${sandbox.flowServer.url}/wait` });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.deepEqual([changed.body.max_size, changed.body.max_wait_seconds, changed.body.wait_flow, changed.body.wait_url], [9, null, [], `${sandbox.flowServer.url}/wait`]);

    const deleted = await api().delete(`/v1/queues/${queue.id}`);
    assert.deepEqual(deleted.body, { id: queue.id, object: 'queue', deleted: true });
    assert.equal((await api().get(`/v1/queues/${queue.id}`)).status, 404);
  });
});

describe('waiting and being taken', () => {
  test('three callers of different priorities are taken lowest priority first, then oldest; each flow goes on told bridged', async () => {
    const queue = await createQueue({ name: 'priority' });
    sandbox.flowServer.routes.set('/after-priority', [{ say: { text: 'Bye.' } }, { hangup: {} }]);
    const enqueue = (priority: number) => [{ enqueue: { queue: 'priority', priority, action_url: `${sandbox.flowServer.url}/after-priority` } }, { say: { text: 'never reached' } }];
    const low = await caller(enqueue(500));
    const high = await caller(enqueue(100));
    const alsoHigh = await caller(enqueue(100));

    const members = (await api().get(`/v1/queues/${queue.id}/members`)).body.data;
    assert.deepEqual(members.map((m: any) => [m.call_id, m.position, m.priority, m.status]), [
      [high, 1, 100, 'waiting'], [alsoHigh, 2, 100, 'waiting'], [low, 3, 500, 'waiting'],
    ]);
    const fetched = (await api().get(`/v1/queues/${queue.id}`)).body;
    assert.equal(fetched.current_size, 3);
    assert.ok(fetched.oldest_wait_seconds >= fetched.average_wait_seconds);

    const taken: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await api().post(`/v1/queues/${queue.id}/members/front/dequeue`, { to: ORDINARY });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.status, 'bridged');
      assert.deepEqual([res.body.bridged_call_id, res.body.dequeued_to], [null, ORDINARY]);
      taken.push(res.body.call_id);
    }
    assert.deepEqual(taken, [high, alsoHigh, low]);
    const empty = await api().post(`/v1/queues/${queue.id}/members/front/dequeue`, { to: ORDINARY });
    assert.equal(empty.status, 409);
    assert.equal(empty.body.code, 'queue_empty');

    // The dialled number talks 5 s and hangs up: each caller's enqueue then reports bridged to its action_url.
    const requests = await sandbox.flowServer.waitForRequests('/after-priority', 3);
    for (const req of requests) {
      assert.equal(req.verified, true);
      assert.equal(req.body.reason, 'enqueue');
      assert.equal(req.body.enqueue.result, 'bridged');
      assert.equal(req.body.enqueue.queue_id, queue.id);
    }
    for (const id of [low, high, alsoHigh]) {
      const [left] = await waitForFlowEvent(sandbox.receiver, id, 'call.queue.left');
      assert.equal(left!.data.object.result, 'bridged');
      assert.equal(typeof left!.data.object.wait_seconds, 'number');
      await sandbox.receiver.waitForEvent('call.completed', id);
      assert.deepEqual((await logOf(id)).map(([verb]: [string]) => verb), ['enqueue', 'say', 'hangup']);
    }
  });

  test('max_wait_seconds: the caller leaves with timeout after hearing the wait flow, and its flow goes on', async () => {
    await createQueue({ name: 'slow', max_wait_seconds: 3, wait_flow: [{ say: { text: 'Still there?' } }, { pause: { seconds: 1 } }] });
    const id = await caller([{ enqueue: { queue: 'slow' } }, { say: { text: 'Sorry, nobody could take your call.' } }, { hangup: {} }]);
    await sandbox.receiver.waitForEvent('call.completed', id);
    const entry = await enqueueEntry(id);
    assert.equal(entry.result.result, 'timeout');
    assert.ok(entry.result.wait_seconds >= 3, `it waited its max_wait_seconds (${entry.result.wait_seconds})`);
    const [left] = await waitForFlowEvent(sandbox.receiver, id, 'call.queue.left');
    assert.equal(left!.data.object.result, 'timeout');
    assert.deepEqual((await logOf(id)).map(([verb]: [string]) => verb), ['enqueue', 'say', 'hangup']);
  });

  test('a full queue refuses the next caller at once with full', async () => {
    const queue = await createQueue({ name: 'tiny', max_size: 1 });
    sandbox.flowServer.routes.set('/after-full', [{ say: { text: 'We are busy.' } }, { hangup: {} }]);
    const first = await caller([{ enqueue: { queue: 'tiny' } }]);
    const second = await caller([{ enqueue: { queue: 'tiny', action_url: `${sandbox.flowServer.url}/after-full` } }], { joins: false });
    const [req] = await sandbox.flowServer.waitForRequests('/after-full');
    assert.equal(req!.body.enqueue.result, 'full');
    assert.equal(req!.body.enqueue.wait_seconds, 0);
    await sandbox.receiver.waitForEvent('call.completed', second);
    assert.equal((await api().get(`/v1/queues/${queue.id}`)).body.current_size, 1);
    await api().post(`/v1/calls/${first}/hangup`);
  });

  test('a caller who hangs up while waiting leaves with hangup and frees its place', async () => {
    const queue = await createQueue({ name: 'hangups' });
    const id = await caller([{ enqueue: { queue: 'hangups' } }]);
    assert.equal((await api().get(`/v1/queues/${queue.id}`)).body.current_size, 1);
    assert.equal((await api().post(`/v1/calls/${id}/hangup`)).status, 200);
    const [left] = await waitForFlowEvent(sandbox.receiver, id, 'call.queue.left');
    assert.equal(left!.data.object.result, 'hangup');
    assert.equal((await api().get(`/v1/queues/${queue.id}`)).body.current_size, 0);
    assert.deepEqual((await api().get(`/v1/queues/${queue.id}/members`)).body.data, []);
    const taken = await api().post(`/v1/queues/${queue.id}/members/${id}/dequeue`, { to: ORDINARY });
    assert.equal(taken.status, 409);
    assert.equal(taken.body.code, 'queue_member_not_waiting');
  });

  test('DELETE a member: it leaves and its flow goes on after the enqueue', async () => {
    const queue = await createQueue({ name: 'removals' });
    const id = await caller([{ enqueue: { queue: 'removals' } }, { say: { text: 'You left the queue.' } }, { hangup: {} }]);
    const removed = await api().delete(`/v1/queues/${queue.id}/members/${id}`);
    assert.equal(removed.status, 200, JSON.stringify(removed.body));
    assert.deepEqual([removed.body.status, removed.body.result, removed.body.position], ['left', 'leave', null]);
    await sandbox.receiver.waitForEvent('call.completed', id);
    assert.deepEqual((await logOf(id)).map(([verb]: [string]) => verb), ['enqueue', 'say', 'hangup']);
    assert.equal((await enqueueEntry(id)).result.result, 'leave');
  });

  test('a leave in the wait flow ends the wait with leave', async () => {
    await createQueue({ name: 'leavers', wait_flow: [{ say: { text: 'Nobody is here today.' } }, { leave: {} }] });
    const id = await caller([{ enqueue: { queue: 'leavers' } }, { hangup: {} }]);
    await sandbox.receiver.waitForEvent('call.completed', id);
    assert.equal((await enqueueEntry(id)).result.result, 'leave');
  });

  test('the wait flow names the caller\'s place: a recorded call hears its position filled in', async () => {
    await createQueue({ name: 'announced', wait_flow: [{ say: { text: 'You are number {{queue.position}} of {{queue.size}}.' } }, { leave: {} }] });
    const res = await api().post('/v1/calls', { from: sandbox.from, to: MAGIC.staysUp, record: true, flow: [{ enqueue: { queue: 'announced' } }, { hangup: {} }] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const id = res.body.id;
    await sandbox.receiver.waitForEvent('call.completed', id);
    const [{ id: recordingId }] = (await api().get(`/v1/calls/${id}/recordings`)).body.data;
    await sandbox.receiver.waitForEvent('call.recording.ready', recordingId, 30_000);
    const recording = (await api().get(`/v1/recordings/${recordingId}`)).body;
    const said = recording.transcript.segments.map((s: { text: string }) => s.text);
    assert.ok(said.includes('You are number 1 of 1.'), JSON.stringify(said));
  });

  test('a wait_url answers the wait flow at each pass, told the caller\'s place', async () => {
    await createQueue({ name: 'hosted', wait_url: `${sandbox.flowServer.url}/hold` });
    let passes = 0;
    sandbox.flowServer.routes.set('/hold', () => (++passes < 2 ? [{ say: { text: 'Please hold.' } }] : [{ leave: {} }]));
    const id = await caller([{ enqueue: { queue: 'hosted' } }, { hangup: {} }]);
    const requests = await sandbox.flowServer.waitForRequests('/hold', 2);
    for (const req of requests) {
      assert.equal(req.verified, true);
      assert.equal(req.body.call_id, id);
      assert.deepEqual([req.body.queue.name, req.body.queue.position, req.body.queue.size], ['hosted', 1, 1]);
      assert.equal(typeof req.body.queue.wait_seconds, 'number');
    }
    await sandbox.receiver.waitForEvent('call.completed', id);
    assert.equal((await enqueueEntry(id)).result.result, 'leave');
  });

  test('an unknown queue is the result error, and the flow goes on', async () => {
    const id = await caller([{ enqueue: { queue: 'nope' } }, { hangup: {} }], { joins: false });
    await sandbox.receiver.waitForEvent('call.completed', id);
    const entry = await enqueueEntry(id);
    assert.equal(entry.result.result, 'error');
    assert.match(entry.result.detail, /nope/);
  });
});

describe('the dequeue verb', () => {
  test('an agent\'s call takes the caller, the two are bridged until the agent hangs up, then both flows go on', async () => {
    const queue = await createQueue({ name: 'agents' });
    sandbox.flowServer.routes.set('/after-agents', [{ say: { text: 'Thanks for calling.' } }, { hangup: {} }]);
    const waiting = await caller([{ enqueue: { queue: 'agents', action_url: `${sandbox.flowServer.url}/after-agents` } }]);
    const agent = await caller([{ dequeue: { queue: 'agents' } }], { joins: false });
    await waitForFlow(api(), agent, (f) => f.log.some((e: any) => e.verb === 'dequeue'));
    const member = (await api().get(`/v1/queues/${queue.id}/members`)).body.data;
    assert.deepEqual(member, [], 'the caller is no longer waiting');
    const [left] = await waitForFlowEvent(sandbox.receiver, waiting, 'call.queue.left');
    assert.equal(left!.data.object.result, 'bridged');
    assert.equal((await api().post(`/v1/calls/${agent}/hangup`)).status, 200);
    const [req] = await sandbox.flowServer.waitForRequests('/after-agents');
    assert.equal(req!.body.enqueue.result, 'bridged');
    await sandbox.receiver.waitForEvent('call.completed', waiting);
  });

  test('an empty queue: dequeue ends with timeout and the flow goes on', async () => {
    await createQueue({ name: 'nobody' });
    const agent = await caller([{ dequeue: { queue: 'nobody' } }, { hangup: {} }], { joins: false });
    await sandbox.receiver.waitForEvent('call.completed', agent);
    const entry = (await api().get(`/v1/calls/${agent}/flow`)).body.log.find((e: any) => e.verb === 'dequeue');
    assert.equal(entry.result.result, 'timeout');
  });

  test('POST .../dequeue {call_id}: a call in progress takes the caller (its running verb is cut for a dequeue)', async () => {
    const queue = await createQueue({ name: 'supervisors' });
    const waiting = await caller([{ enqueue: { queue: 'supervisors' } }, { hangup: {} }]);
    const agent = await caller([{ pause: { seconds: 600 } }], { joins: false });
    await waitForFlow(api(), agent, (f) => f.log.some((e: any) => e.verb === 'pause'));
    const res = await api().post(`/v1/queues/${queue.id}/members/${waiting}/dequeue`, { call_id: agent });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.ok(['reserved', 'bridged'].includes(res.body.status), res.body.status);
    assert.equal(res.body.bridged_call_id, agent);
    await waitForFlowEvent(sandbox.receiver, waiting, 'call.queue.left');
    const flow = await waitForFlow(api(), agent, (f) => f.log.some((e: any) => e.verb === 'dequeue'));
    assert.deepEqual(flow.log[0].result, { reason: 'interrupted' });
    // The caller hangs up: the agent's dequeue goes on with bridged (its flow then runs out and ends the call).
    await api().post(`/v1/calls/${waiting}/hangup`);
    await sandbox.receiver.waitForEvent('call.completed', agent);
    const entry = (await api().get(`/v1/calls/${agent}/flow`)).body.log.find((e: any) => e.verb === 'dequeue');
    assert.equal(entry.result.result, 'bridged');
    assert.equal(entry.result.caller_call_id, waiting);
  });
});
