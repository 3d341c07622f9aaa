// Issue 26, a supervisor on live calls: three SIPp trunks answer our three calls and send tones
// of their own pitch (the caller's 500 Hz in µ-law, the agent's 800 Hz in A-law, the
// supervisor's 1200 Hz in µ-law). The caller's flow enqueues it; the agent's flow is a
// `dequeue` verb, which takes it (the RTP engine's bus of the connection). POST
// /v1/calls/{id}/monitor in `whisper` calls the supervisor and seats it on that same bus. Each
// call's recording, channel 0 (what we sent it), shows who heard whom while it was seated: the
// agent hears the caller and the supervisor, the caller hears the agent and not the
// supervisor, the supervisor hears both and not itself. The supervisor's hang-up ends only
// the monitor: the agent then hears the caller alone.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { freeUdpPort, peerAvailable, runSipp } from '../helpers/sipp.ts';
import { toneTrunk } from '../helpers/tone-trunk.ts';
import { startLiveVoice, type LiveVoice } from '../helpers/live-voice.ts';
import { toneShare } from '../helpers/audio-match.ts';
import type { ReceivedEvent } from '../helpers/webhook-receiver.ts';

const hasSipp = peerAvailable('sipp');
const RATE = 8000;
const CALLER_FROM = '+14155550181';
const AGENT_FROM = '+14155550182';
const SUPERVISOR_FROM = '+14155550183';
const TO = '+14155550199';
const PITCH = { caller: 500, agent: 800, supervisor: 1200 } as const;

let lv: LiveVoice;
const ports = { caller: 0, agent: 0, supervisor: 0 };

before(async () => {
  if (!hasSipp) return;
  for (const name of ['caller', 'agent', 'supervisor'] as const) ports[name] = await freeUdpPort();
  lv = await startLiveVoice({
    rtp: [51400, 51498],
    trunks: (['caller', 'agent', 'supervisor'] as const).map((name) => `{ name: sipp-${name}, host: 127.0.0.1, port: ${ports[name]}, codecs: [PCMU, PCMA] }`),
    numbers: { [CALLER_FROM]: 'sipp-caller', [AGENT_FROM]: 'sipp-agent', [SUPERVISOR_FROM]: 'sipp-supervisor' },
  });
});

after(async () => {
  await lv?.close();
});

test('a supervisor in whisper on a live queue connection is heard by the agent leg only, and hears both', { skip: !hasSipp, timeout: 120_000 }, async (ctx) => {
  const live = lv.live();
  const queue = await live.post('/v1/queues', { name: 'live-monitor', wait_flow: [{ say: { text: 'Please hold.' } }, { pause: { seconds: 1 } }] });
  assert.equal(queue.status, 200, JSON.stringify(queue.body));
  const sipps = {
    caller: await runSipp({ scenario: toneTrunk(PITCH.caller, 'PCMU', 60), port: ports.caller, timeoutSeconds: 100 }),
    agent: await runSipp({ scenario: toneTrunk(PITCH.agent, 'PCMA', 60), port: ports.agent, timeoutSeconds: 100 }),
    supervisor: await runSipp({ scenario: toneTrunk(PITCH.supervisor, 'PCMU', 60), port: ports.supervisor, timeoutSeconds: 100 }),
  };
  const caller = await live.post('/v1/calls', { from: CALLER_FROM, to: TO, record: true, flow: [{ enqueue: { queue: 'live-monitor' } }, { hangup: {} }] });
  assert.equal(caller.status, 200, JSON.stringify(caller.body));
  const callerId = caller.body.id as string;
  await lv.receiver.waitFor((events) => events.some((e) => e.type === 'call.queue.joined' && e.data.object.call_id === callerId), 20_000);
  const agent = await live.post('/v1/calls', { from: AGENT_FROM, to: TO, record: true, flow: [{ dequeue: { queue: 'live-monitor' } }, { hangup: {} }] });
  assert.equal(agent.status, 200, JSON.stringify(agent.body));
  const agentId = agent.body.id as string;
  const bridged = (e: ReceivedEvent) => e.type === 'call.queue.left' && e.data.object.call_id === callerId && e.data.object.result === 'bridged';
  await lv.receiver.waitFor((events) => events.some(bridged), 20_000);

  const monitor = await live.post(`/v1/calls/${callerId}/monitor`, { supervisor: { to: TO, from: SUPERVISOR_FROM }, mode: 'whisper', record: true });
  assert.equal(monitor.status, 200, JSON.stringify(monitor.body));
  assert.deepEqual([monitor.body.status, monitor.body.agent_call_id], ['dialing', agentId]);
  const supervisorId = monitor.body.supervisor_call_id as string;
  const startedEvent = (e: ReceivedEvent) => e.type === 'call.monitor.started' && e.data.object.id === monitor.body.id;
  await lv.receiver.waitFor((events) => events.some(startedEvent), 20_000);
  const seatedAt = Date.now();
  await sleep(4000);
  const hung = await live.post(`/v1/calls/${supervisorId}/hangup`);
  assert.equal(hung.body.status, 'completed');
  const leftAt = Date.now();
  const endedEvent = (e: ReceivedEvent) => e.type === 'call.monitor.ended' && e.data.object.id === monitor.body.id;
  const ended = (await lv.receiver.waitFor((events) => events.some(endedEvent), 20_000)).find(endedEvent)!;
  assert.equal(ended.data.object.end_reason, 'supervisor_hangup');
  for (const id of [callerId, agentId]) assert.equal((await live.get(`/v1/calls/${id}`)).body.status, 'in_progress', 'the conversation goes on');
  await sleep(3000);
  const afterAt = Date.now();
  assert.equal((await live.post(`/v1/calls/${agentId}/hangup`)).body.status, 'completed');

  for (const [name, sipp] of Object.entries(sipps)) {
    const result = await sipp.done;
    assert.equal(result.code, 0, `SIPp ${name}: ${result.errors}`);
  }

  /** The share of `hz` in what `id` heard between two wall-clock marks (a second's margin after the first, half before the last). */
  async function heard(id: string, from: number, to: number) {
    const call = await live.get(`/v1/calls/${id}`);
    const at = (mark: number) => Math.round(((mark - Date.parse(call.body.answered_at)) / 1000) * RATE);
    const samples = (await lv.recordingOf(id)).samples[0]!;
    const start = Math.max(0, at(from) + RATE);
    const length = Math.min(at(to) - RATE / 2, samples.length) - start;
    assert.ok(length >= RATE, `a second or more of what ${id} heard`);
    return (hz: number) => toneShare(samples, hz, start, length);
  }
  const seated = {
    caller: await heard(callerId, seatedAt, leftAt),
    agent: await heard(agentId, seatedAt, leftAt),
    supervisor: await heard(supervisorId, seatedAt, leftAt),
  };
  for (const [listener, share] of Object.entries(seated)) {
    ctx.diagnostic(`while seated, the ${listener} hears 500 Hz at ${share(500).toFixed(3)}, 800 Hz at ${share(800).toFixed(3)}, 1200 Hz at ${share(1200).toFixed(3)}`);
  }
  // The whisper reaches the agent only.
  assert.ok(seated.agent(PITCH.supervisor) > 0.2, 'the agent hears the supervisor');
  assert.ok(seated.agent(PITCH.caller) > 0.2, 'the agent hears the caller');
  assert.ok(seated.caller(PITCH.supervisor) < 0.02, 'the caller does not hear the supervisor');
  assert.ok(seated.caller(PITCH.agent) > 0.5, 'the caller hears the agent');
  // The supervisor hears both sides, and not itself.
  assert.ok(seated.supervisor(PITCH.caller) > 0.2, 'the supervisor hears the caller');
  assert.ok(seated.supervisor(PITCH.agent) > 0.2, 'the supervisor hears the agent');
  assert.ok(seated.supervisor(PITCH.supervisor) < 0.02, 'the supervisor does not hear itself');
  // After the supervisor left, the two talk on as before.
  const alone = await heard(agentId, leftAt, afterAt);
  assert.ok(alone(PITCH.caller) > 0.5 && alone(PITCH.supervisor) < 0.02, `the agent hears the caller alone afterwards: ${alone(PITCH.caller)}, ${alone(PITCH.supervisor)}`);
});
