// Call queues under concurrency, through HTTP on the sandbox: dequeues racing from many
// clients take each waiting caller exactly once, and a caller hanging up while it is being
// taken is either taken (then hangs up from the bridge) or leaves with hangup, never both.
// issue 25: queues, "two dequeues never take the same caller".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAGIC } from './voice-helpers.ts';
import { waitForFlowEvent } from './flow-helpers.ts';
import { useSandboxAccount } from '../helpers/sandbox-account.ts';

const sandbox = useSandboxAccount();
const api = () => sandbox.api();

async function queueNamed(name: string): Promise<string> {
  // One long silence as the wait flow: twenty waiting callers then cost one job each, not a loop of them.
  const res = await api().post('/v1/queues', { name, wait_flow: [{ pause: { seconds: 600 } }] });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.id;
}

async function waitingCaller(queue: string): Promise<string> {
  const res = await api().post('/v1/calls', { from: sandbox.from, to: MAGIC.staysUp, flow: [{ enqueue: { queue } }, { hangup: {} }] });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  await waitForFlowEvent(sandbox.receiver, res.body.id, 'call.queue.joined');
  return res.body.id;
}

test('20 clients dequeue the front of a queue of 10 callers at once: each caller is taken exactly once, the rest find it empty', async () => {
  const queue = await queueNamed('rush');
  const callers = await Promise.all(Array.from({ length: 10 }, () => waitingCaller('rush')));
  const answers = await Promise.all(Array.from({ length: 20 }, () => api().post(`/v1/queues/${queue}/members/front/dequeue`, { to: MAGIC.staysUp })));
  const taken = answers.filter((a) => a.status === 200).map((a) => a.body.call_id as string);
  const refused = answers.filter((a) => a.status !== 200);
  assert.deepEqual(refused.map((a) => a.body.code), Array(10).fill('queue_empty'), JSON.stringify(refused.map((a) => a.body)));
  assert.deepEqual([...taken].sort(), [...callers].sort(), 'every caller taken, none twice');
  for (const id of callers) {
    const left = await waitForFlowEvent(sandbox.receiver, id, 'call.queue.left');
    assert.deepEqual(left.map((e) => e.data.object.result), ['bridged']);
  }
  assert.equal((await api().get(`/v1/queues/${queue}`)).body.current_size, 0);
  await Promise.all(callers.map((id) => api().post(`/v1/calls/${id}/hangup`)));
});

test('20 clients race for one named caller: exactly one takes it', async () => {
  const queue = await queueNamed('one-caller');
  const id = await waitingCaller('one-caller');
  const answers = await Promise.all(Array.from({ length: 20 }, () => api().post(`/v1/queues/${queue}/members/${id}/dequeue`, { to: MAGIC.staysUp })));
  assert.equal(answers.filter((a) => a.status === 200).length, 1);
  assert.deepEqual(new Set(answers.filter((a) => a.status !== 200).map((a) => a.body.code)), new Set(['queue_member_not_waiting']));
  await api().post(`/v1/calls/${id}/hangup`);
});

test('a caller hanging up while it is being taken is never bridged after its hang-up', async () => {
  const queue = await queueNamed('hangup-race');
  for (let round = 0; round < 8; round++) {
    const id = await waitingCaller('hangup-race');
    const [dequeued, hungUp] = await Promise.all([
      api().post(`/v1/queues/${queue}/members/${id}/dequeue`, { to: MAGIC.staysUp }),
      api().post(`/v1/calls/${id}/hangup`),
    ]);
    assert.equal(hungUp.status, 200);
    const [left] = await waitForFlowEvent(sandbox.receiver, id, 'call.queue.left');
    if (dequeued.status === 200) {
      // Taken first: it left the queue bridged, and its hang-up then ended the bridge.
      assert.equal(left!.data.object.result, 'bridged', `round ${round}`);
    } else {
      assert.equal(dequeued.body.code, 'queue_member_not_waiting', `round ${round}`);
      assert.equal(left!.data.object.result, 'hangup', `round ${round}`);
    }
    assert.equal((await waitForFlowEvent(sandbox.receiver, id, 'call.queue.left')).length, 1, 'it left its queue once');
  }
  assert.equal((await api().get(`/v1/queues/${queue}`)).body.current_size, 0);
});
