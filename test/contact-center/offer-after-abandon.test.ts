// Test lane: real-time (scripts/test.mjs): a worker answering after its caller hung up needs the
// hang-up to land within the worker's 3 s ring.
// Issue 26: "a worker who answers an offer the caller has just abandoned gets a short message
// and is released". The sandbox runs in real time here (SWITCHBOARD_SIM_TIME_SCALE 3: an
// ordinary number rings 3 s), so the caller can hang up while the worker's phone rings; the
// worker then answers a call whose caller is gone. Through HTTP, with webhooks to a real
// receiver: the worker's call says so and hangs up, the worker is connected to nobody, is
// available again, and its statistics count a handled call of none.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useSandboxAccount } from '../helpers/sandbox-account.ts';
import { MAGIC, ORDINARY, eventsOf } from '../voice/voice-helpers.ts';
import { waitForFlow, waitForFlowEvent } from '../voice/flow-helpers.ts';

const sandbox = useSandboxAccount({ SWITCHBOARD_SIM_TIME_SCALE: '3' });
const api = () => sandbox.api();

function ok(res: { status: number; body: any }) {
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

test('a worker who answers after its caller hung up hears that the caller is gone, and is released', async () => {
  ok(await api().post('/v1/queues', { name: 'gone', wait_flow: [{ pause: { seconds: 600 } }], routing: { required_skills: ['gone'] } }));
  const worker = ok(await api().post('/v1/workers', { name: 'Late', skills: ['gone'], reach: ORDINARY, status: 'available', ring_timeout_seconds: 60 }));
  const caller = ok(await api().post('/v1/calls', { from: sandbox.from, to: MAGIC.staysUp, flow: [{ enqueue: { queue: 'gone' } }, { hangup: {} }] }));

  await sandbox.receiver.waitFor(() => eventsOf(sandbox.receiver, worker.id).some((e) => e.type === 'worker.offered'), 20_000);
  const offered = eventsOf(sandbox.receiver, worker.id).find((e) => e.type === 'worker.offered')!;
  const workerCall = offered.data.object.offer?.call_id as string;
  assert.match(String(workerCall), /^call_/, `the offer names the worker's call: ${JSON.stringify(offered.data.object)}`);
  // The worker's phone rings 3 s: the caller gives up meanwhile.
  ok(await api().post(`/v1/calls/${caller.id}/hangup`, {}));
  const [left] = await waitForFlowEvent(sandbox.receiver, caller.id, 'call.queue.left');
  assert.equal(left!.data.object.result, 'hangup');

  // The worker answers: its call takes nobody, says why, and hangs up.
  await sandbox.receiver.waitForEvent('call.answered', workerCall, 20_000);
  const flow = await waitForFlow(api(), workerCall, (f) => f.log.length >= 3 && f.log[2].ended_at != null, 30_000);
  assert.deepEqual(flow.log.map((e: any) => e.verb), ['dequeue', 'say', 'hangup']);
  assert.notEqual(flow.log[0].result?.reason, 'bridged', 'the worker was connected to nobody');
  await sandbox.receiver.waitForEvent('call.completed', workerCall, 30_000);

  // Released: available again, with no call, and no connection counted.
  const released = await waitUntilAvailable(worker.id);
  assert.equal(released.current_call_id, null);
  const stats = ok(await api().get(`/v1/workers/${worker.id}/stats?window_minutes=60`));
  assert.equal(stats.calls_handled, 0, JSON.stringify(stats));
  const queueLeft = await waitForFlowEvent(sandbox.receiver, caller.id, 'call.queue.left');
  assert.equal(queueLeft.length, 1, 'the caller left the queue once, by hanging up');
});

async function waitUntilAvailable(workerId: string): Promise<any> {
  for (let i = 0; i < 600; i++) {
    const worker = ok(await api().get(`/v1/workers/${workerId}`));
    if (worker.status === 'available') return worker;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the worker never became available again');
}
