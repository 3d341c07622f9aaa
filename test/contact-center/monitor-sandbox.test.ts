// Test lane: real-time (scripts/test.mjs): the sandbox monitor mixes a supervisor into a bridge on
// the wall clock (scale 1), like a conference.
// Issue 26, supervisors in the sandbox, through HTTP only (both databases): a caller waits in a
// queue and an agent's call takes it (a dequeue verb: what a routed worker's call runs), so the
// two are connected. A supervisor is called with POST /v1/calls/{id}/monitor and, once it
// answers, is seated beside them: in listen it hears both and nobody hears it; PATCHed to
// whisper, only the agent hears it; to barge, both do. Every party says its own words (POST
// /v1/sandbox/calls/{id}/say) while the test moves the account's test clock, and each call's
// recording (record: true; channel 0 of an outbound call is what it heard, channel 1 its own
// words) shows who heard whom. The supervisor hanging up ends only the monitor: the two talk
// on. A second monitor is ended with DELETE; a call that is not connected, or has ended, is
// refused with 409. Then routing: a worker's leg takes the caller, a supervising worker
// (supervisor.worker_id) whispers to that leg only, a flow's own monitor verb on the same
// conversation is refused (its flow goes on), and the caller's hang-up ends the monitor. Either
// connected call given a new flow (POST /v1/calls/{id}/flow) leaves the conversation: the
// monitor ends and the other call's flow goes on.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useSandboxAccount } from '../helpers/sandbox-account.ts';
import { MAGIC } from '../voice/voice-helpers.ts';
import { waitForFlow, waitForRunning } from '../voice/flow-helpers.ts';
import type { ReceivedEvent } from '../helpers/webhook-receiver.ts';

const sandbox = useSandboxAccount({ SWITCHBOARD_SIM_TIME_SCALE: '1' });
const api = () => sandbox.api();

/** Moves the account's test clock on (the scale is 1); every job that fell due has run when it answers. */
async function advance(seconds: number): Promise<void> {
  const res = await api().post('/v1/sandbox/clock/advance', { seconds });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

async function say(callId: string, text: string): Promise<void> {
  const res = await api().post(`/v1/sandbox/calls/${callId}/say`, { text });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  // Every word has started before anything else changes.
  await advance(2);
}

/** An answered outbound call running `flow`, recorded. */
async function place(flow: unknown[]): Promise<string> {
  const res = await api().post('/v1/calls', { from: sandbox.from, to: MAGIC.staysUp, record: true, flow });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  await advance(1.05);
  await sandbox.receiver.waitForEvent('call.answered', res.body.id);
  return res.body.id as string;
}

const monitorEvents = (type: string, monitorId: string): ReceivedEvent[] => {
  const seen = new Map<string, ReceivedEvent>();
  for (const e of sandbox.receiver.events()) if (e.type === type && e.data.object?.id === monitorId) seen.set(e.id, e);
  return [...seen.values()].sort((a, b) => a.sequence - b.sequence);
};
async function waitForMonitorEvents(type: string, monitorId: string, count: number): Promise<ReceivedEvent[]> {
  await sandbox.receiver.waitFor(() => monitorEvents(type, monitorId).length >= count, 20_000);
  return monitorEvents(type, monitorId);
}

async function patchMode(callId: string, monitorId: string, mode: string) {
  const res = await api().patch(`/v1/calls/${callId}/monitors/${monitorId}`, { mode });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.mode, mode);
  return res.body;
}

/** The call's own recording, ready. */
async function recordingOf(callId: string) {
  const listed = (await api().get(`/v1/recordings?call_id=${callId}`)).body.data.filter((r: any) => r.call_id === callId && r.conference_id == null);
  assert.equal(listed.length, 1, `call ${callId} has one recording of its own`);
  await sandbox.receiver.waitForEvent('call.recording.ready', listed[0].id, 20_000);
  return (await api().get(`/v1/recordings/${listed[0].id}`)).body;
}

/** The words on `channel` of a recording, one string per segment. */
const linesOn = (recording: any, channel: number): string[] => recording.transcript.segments.filter((s: any) => s.channel === channel).map((s: any) => s.text);

/** A caller taken from a new queue by an agent's dequeue: both flows go on with `after` when the bridge ends. */
async function connectedPair(queue: string, options: { timeLimit?: number; after?: unknown[] } = {}): Promise<{ caller: string; agent: string }> {
  const after = options.after ?? [{ hangup: {} }];
  const created = await api().post('/v1/queues', { name: queue, wait_flow: [{ pause: { seconds: 1 } }] });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const caller = await place([{ enqueue: { queue } }, ...after]);
  await sandbox.receiver.waitFor((events) => events.some((e) => e.type === 'call.queue.joined' && e.data.object.call_id === caller), 20_000);
  const agent = await place([{ dequeue: { queue, ...(options.timeLimit ? { time_limit: options.timeLimit } : {}) } }, ...after]);
  await sandbox.receiver.waitFor((events) => events.some((e) => e.type === 'call.queue.left' && e.data.object.call_id === caller && e.data.object.result === 'bridged'), 20_000);
  return { caller, agent };
}

describe('issue 26: supervisors in the sandbox', () => {
  test('listen, whisper, barge: who hears whom; the supervisor hanging up ends only the monitor; DELETE; refusals', async () => {
    const { caller, agent } = await connectedPair(`monitored-${Date.now()}`);

    // Not connected: refused, and nothing is dialled.
    const alone = await place([{ pause: { seconds: 60 } }]);
    const lonely = await api().post(`/v1/calls/${alone}/monitor`, { supervisor: { to: MAGIC.staysUp } });
    assert.equal(lonely.status, 409, JSON.stringify(lonely.body));
    assert.equal(lonely.body.code, 'call_not_monitorable');

    // Bad requests: no supervisor, an unknown mode, a worker that does not exist, someone else's number.
    for (const [body, status, code] of [
      [{ supervisor: {} }, 400, 'validation_failed'],
      [{ supervisor: { to: MAGIC.staysUp }, mode: 'spy' }, 400, 'validation_failed'],
      [{ supervisor: { worker_id: 'wrk_0000000000000000000000000' } }, 404, 'not_found'],
      [{ supervisor: { to: MAGIC.staysUp, from: '+14155550100' } }, 422, 'from_number_not_owned'],
    ] as const) {
      const refused = await api().post(`/v1/calls/${caller}/monitor`, body);
      assert.deepEqual([refused.status, refused.body.code], [status, code], JSON.stringify(refused.body));
    }

    await say(caller, 'caller zero');
    const started = await api().post(`/v1/calls/${caller}/monitor`, { supervisor: { to: MAGIC.staysUp }, mode: 'listen', record: true });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    const monitor = started.body;
    assert.deepEqual([monitor.object, monitor.status, monitor.mode, monitor.caller_call_id, monitor.agent_call_id, monitor.call_id], ['call_monitor', 'dialing', 'listen', caller, agent, caller]);
    assert.match(monitor.id, /^mon_/);
    const supervisor = monitor.supervisor_call_id as string;
    // One monitor of a conversation at a time, whichever side is named.
    const twice = await api().post(`/v1/calls/${agent}/monitor`, { supervisor: { to: MAGIC.staysUp } });
    assert.equal(twice.status, 409, JSON.stringify(twice.body));
    assert.equal(twice.body.code, 'call_already_monitored');

    await advance(1.05);
    await waitForMonitorEvents('call.monitor.started', monitor.id, 1);
    await waitForRunning(api(), supervisor, 0);
    assert.equal((await api().get(`/v1/calls/${caller}/monitors/${monitor.id}`)).body.status, 'active');

    // listen: the supervisor hears both; nobody hears it.
    await say(caller, 'caller one');
    await say(agent, 'agent one');
    await say(supervisor, 'supervisor listening');
    // whisper: only the agent hears it.
    await patchMode(caller, monitor.id, 'whisper');
    await say(supervisor, 'supervisor whispering');
    await say(caller, 'caller two');
    // barge: both hear it.
    await patchMode(agent, monitor.id, 'barge');
    await say(supervisor, 'supervisor barging');
    await say(agent, 'agent two');

    // The supervisor hangs up: the monitor ends, the two talk on.
    const hung = await api().post(`/v1/calls/${supervisor}/hangup`);
    assert.equal(hung.status, 200, JSON.stringify(hung.body));
    const [ended] = await waitForMonitorEvents('call.monitor.ended', monitor.id, 1);
    assert.deepEqual([ended!.data.object.status, ended!.data.object.end_reason], ['ended', 'supervisor_hangup']);
    for (const id of [caller, agent]) assert.equal((await api().get(`/v1/calls/${id}`)).body.status, 'in_progress');
    await say(caller, 'caller three');
    const late = await api().patch(`/v1/calls/${caller}/monitors/${monitor.id}`, { mode: 'listen' });
    assert.equal(late.status, 409, JSON.stringify(late.body));
    assert.equal(late.body.code, 'monitor_ended');

    // A second monitor, ended with DELETE: its supervisor's flow goes on (it has nothing more: it hangs up).
    const again = await api().post(`/v1/calls/${agent}/monitor`, { supervisor: { to: MAGIC.staysUp }, mode: 'barge' });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    await advance(1.05);
    await waitForMonitorEvents('call.monitor.started', again.body.id, 1);
    const deleted = await api().delete(`/v1/calls/${agent}/monitors/${again.body.id}`);
    assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
    assert.deepEqual([deleted.body.status, deleted.body.end_reason], ['ended', 'api']);
    await sandbox.receiver.waitForEvent('call.completed', again.body.supervisor_call_id);
    await say(agent, 'agent three');

    // The agent hangs up: the caller's flow goes on to its hangup.
    assert.equal((await api().post(`/v1/calls/${agent}/hangup`)).status, 200);
    await advance(1);
    await sandbox.receiver.waitForEvent('call.completed', caller);
    const over = await api().post(`/v1/calls/${caller}/monitor`, { supervisor: { to: MAGIC.staysUp } });
    assert.equal(over.status, 409, JSON.stringify(over.body));
    assert.equal(over.body.code, 'call_not_in_progress');

    // Events: started, two updates, ended, in order, on the monitored call.
    const updated = await waitForMonitorEvents('call.monitor.updated', monitor.id, 2);
    assert.deepEqual(updated.map((e) => e.data.object.mode), ['whisper', 'barge']);
    const all = [...monitorEvents('call.monitor.started', monitor.id), ...updated, ...monitorEvents('call.monitor.ended', monitor.id)].sort((a, b) => a.sequence - b.sequence);
    assert.deepEqual(all.map((e) => e.type), ['call.monitor.started', 'call.monitor.updated', 'call.monitor.updated', 'call.monitor.ended']);
    // They are the monitored call's events (its sequence, GET /v1/events?object_id=).
    const onCall = (await api().get(`/v1/events?object_id=${caller}&limit=100`)).body.data.map((e: any) => e.type);
    assert.deepEqual(onCall.filter((t: string) => t.startsWith('call.monitor.')).sort(), ['call.monitor.ended', 'call.monitor.started', 'call.monitor.updated', 'call.monitor.updated']);
    const listed = (await api().get(`/v1/calls/${caller}/monitors`)).body.data;
    assert.deepEqual(listed.map((m: any) => [m.id, m.end_reason]), [[again.body.id, 'api'], [monitor.id, 'supervisor_hangup']]);

    // Who heard whom (channel 0: what the call heard; channel 1: its own words).
    const recCaller = await recordingOf(caller);
    assert.deepEqual(linesOn(recCaller, 0), ['agent one', 'supervisor barging', 'agent two', 'agent three']);
    assert.deepEqual(linesOn(recCaller, 1), ['caller zero', 'caller one', 'caller two', 'caller three']);
    const recAgent = await recordingOf(agent);
    assert.deepEqual(linesOn(recAgent, 0), ['caller zero', 'caller one', 'supervisor whispering', 'caller two', 'supervisor barging', 'caller three']);
    assert.deepEqual(linesOn(recAgent, 1), ['agent one', 'agent two', 'agent three']);
    const recSupervisor = await recordingOf(supervisor);
    assert.deepEqual(linesOn(recSupervisor, 0), ['caller one', 'agent one', 'caller two', 'agent two']);
    assert.deepEqual(linesOn(recSupervisor, 1), ['supervisor listening', 'supervisor whispering', 'supervisor barging']);
  });

  test('a routed worker\'s leg is the agent: a supervising worker\'s whisper reaches it only; a monitor verb of its own is refused while one is open', async () => {
    const queue = `routed-${Date.now()}`;
    const created = await api().post('/v1/queues', { name: queue, wait_flow: [{ pause: { seconds: 1 } }], routing: { required_skills: ['care'] } });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const worker = (await api().post('/v1/workers', { name: 'Agent', skills: ['care'], reach: MAGIC.staysUp, status: 'available' })).body;
    // Never routed to (no skill): it only supervises.
    const lead = (await api().post('/v1/workers', { name: 'Lead', reach: MAGIC.staysUp, status: 'offline' })).body;
    const caller = await place([{ enqueue: { queue } }, { hangup: {} }]);
    await sandbox.receiver.waitFor(() => sandbox.receiver.events().some((e) => e.type === 'worker.offered' && e.data.object.id === worker.id), 20_000);
    await advance(1.05);
    await sandbox.receiver.waitFor((events) => events.some((e) => e.type === 'call.queue.left' && e.data.object.call_id === caller && e.data.object.result === 'bridged'), 20_000);
    const leg = (await api().get(`/v1/workers/${worker.id}`)).body.current_call_id as string;
    assert.match(leg, /^call_/);
    const recording = await api().post(`/v1/calls/${leg}/recordings`, {});
    assert.equal(recording.status, 200, JSON.stringify(recording.body));

    const started = await api().post(`/v1/calls/${caller}/monitor`, { supervisor: { worker_id: lead.id }, mode: 'whisper', record: true });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    assert.deepEqual([started.body.caller_call_id, started.body.agent_call_id, started.body.worker_id], [caller, leg, lead.id]);
    const supervisor = started.body.supervisor_call_id as string;
    assert.equal((await api().get(`/v1/calls/${supervisor}`)).body.to, MAGIC.staysUp);
    await advance(1.05);
    await waitForMonitorEvents('call.monitor.started', started.body.id, 1);
    await waitForRunning(api(), supervisor, 0);

    await say(supervisor, 'coach says hello');
    await say(caller, 'caller asks');
    await say(leg, 'worker answers');

    // A flow of its own asking to monitor the same conversation: refused, and the flow goes on.
    const intruder = await place([{ monitor: { call_id: leg, mode: 'barge' } }, { hangup: {} }]);
    const flow = await waitForFlow(api(), intruder, (f) => f.log.length >= 1 && f.log[0].result != null);
    assert.equal(flow.log[0].verb, 'monitor');
    assert.equal(flow.log[0].result.reason, 'refused');
    assert.match(flow.log[0].result.detail, /monitored already/);
    await sandbox.receiver.waitForEvent('call.completed', intruder);

    // The caller hangs up: the monitor ends (call_ended) and the supervisor's flow goes on and hangs up.
    assert.equal((await api().post(`/v1/calls/${caller}/hangup`)).status, 200);
    const [ended] = await waitForMonitorEvents('call.monitor.ended', started.body.id, 1);
    assert.equal(ended!.data.object.end_reason, 'call_ended');
    await advance(1);
    await sandbox.receiver.waitForEvent('call.completed', supervisor);
    await sandbox.receiver.waitForEvent('call.completed', leg);

    const recLeg = await recordingOf(leg);
    // (After the bridge the offer's flow goes on with its own words: not the conversation's.)
    assert.deepEqual(linesOn(recLeg, 0).filter((line) => !line.startsWith('The caller is no longer')), ['coach says hello', 'caller asks']);
    const recCaller = await recordingOf(caller);
    assert.deepEqual(linesOn(recCaller, 0), ['worker answers']);
    const recSupervisor = await recordingOf(supervisor);
    assert.deepEqual(linesOn(recSupervisor, 0), ['caller asks', 'worker answers']);
  });

  test('a supervisor given a new flow leaves (flow_updated); the conversation ending with both calls up (the dequeue\'s time_limit) ends the monitor, the supervisor hangs up', async () => {
    const { caller, agent } = await connectedPair(`limited-${Date.now()}`, { timeLimit: 8, after: [{ pause: { seconds: 30 } }, { hangup: {} }] });
    // First, a supervisor given a new flow leaves (flow_updated), and its new flow runs uncut.
    const first = await api().post(`/v1/calls/${caller}/monitor`, { supervisor: { to: MAGIC.staysUp }, mode: 'listen' });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    // Changed while its phone rings: it takes its seat in the new mode.
    assert.equal((await patchMode(caller, first.body.id, 'whisper')).status, 'dialing');
    await advance(1.05);
    const [seated] = await waitForMonitorEvents('call.monitor.started', first.body.id, 1);
    assert.equal(seated!.data.object.mode, 'whisper');
    const renewed = await api().post(`/v1/calls/${first.body.supervisor_call_id}/flow`, { flow: [{ pause: { seconds: 2 } }, { hangup: {} }] });
    assert.equal(renewed.status, 200, JSON.stringify(renewed.body));
    const [left] = await waitForMonitorEvents('call.monitor.ended', first.body.id, 1);
    assert.equal(left!.data.object.end_reason, 'flow_updated');
    await waitForRunning(api(), first.body.supervisor_call_id, 0);
    const started = await api().post(`/v1/calls/${caller}/monitor`, { supervisor: { to: MAGIC.staysUp }, mode: 'barge' });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    await advance(1.05);
    await waitForMonitorEvents('call.monitor.started', started.body.id, 1);
    await advance(7);
    const [ended] = await waitForMonitorEvents('call.monitor.ended', started.body.id, 1);
    assert.equal(ended!.data.object.end_reason, 'call_ended');
    await advance(0.5);
    await sandbox.receiver.waitForEvent('call.completed', started.body.supervisor_call_id);
    for (const id of [caller, agent]) assert.equal((await api().get(`/v1/calls/${id}`)).body.status, 'in_progress', 'both calls are up, in the rest of their flows');
    const again = await api().post(`/v1/calls/${caller}/monitor`, { supervisor: { to: MAGIC.staysUp } });
    assert.equal(again.status, 409, JSON.stringify(again.body));
    assert.equal(again.body.code, 'call_not_monitorable');
    for (const id of [caller, agent]) await api().post(`/v1/calls/${id}/hangup`);
  });
  for (const side of ['caller', 'agent'] as const) {
    test(`the ${side} given a new flow leaves the conversation: the monitor ends (call_ended), the supervisor hangs up, the other's flow goes on`, async () => {
      const pair = await connectedPair(`updated-${side}-${Date.now()}`, { after: [{ pause: { seconds: 30 } }, { hangup: {} }] });
      const [moved, other] = side === 'caller' ? [pair.caller, pair.agent] : [pair.agent, pair.caller];
      const started = await api().post(`/v1/calls/${pair.caller}/monitor`, { supervisor: { to: MAGIC.staysUp }, mode: 'listen' });
      assert.equal(started.status, 200, JSON.stringify(started.body));
      await advance(1.05);
      await waitForMonitorEvents('call.monitor.started', started.body.id, 1);

      const renewed = await api().post(`/v1/calls/${moved}/flow`, { flow: [{ pause: { seconds: 2 } }, { hangup: {} }] });
      assert.equal(renewed.status, 200, JSON.stringify(renewed.body));
      const [ended] = await waitForMonitorEvents('call.monitor.ended', started.body.id, 1);
      assert.equal(ended!.data.object.end_reason, 'call_ended');
      await advance(0.5);
      await sandbox.receiver.waitForEvent('call.completed', started.body.supervisor_call_id);
      // The other side's verb ends `bridged` and its flow goes on (its pause); the moved call runs its new flow.
      const rest = await waitForFlow(api(), other, (f) => f.log.length >= 2);
      assert.deepEqual([rest.log[0].verb, rest.log[0].result?.result], [side === 'caller' ? 'dequeue' : 'enqueue', 'bridged'], JSON.stringify(rest.log[0]));
      assert.equal((await api().get(`/v1/calls/${other}`)).body.status, 'in_progress');
      const again = await api().post(`/v1/calls/${other}/monitor`, { supervisor: { to: MAGIC.staysUp } });
      assert.equal(again.status, 409, JSON.stringify(again.body));
      assert.equal(again.body.code, 'call_not_monitorable');
      await advance(2.5);
      await sandbox.receiver.waitForEvent('call.completed', moved);
      await api().post(`/v1/calls/${other}/hangup`);
    });
  }
});
