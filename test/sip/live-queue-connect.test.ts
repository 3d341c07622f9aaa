// Issue 25, a live queue's dequeue to a call in progress: two SIPp trunks answer our two calls
// and send tones of their own pitch (the caller's 500 Hz in µ-law, the agent's 800 Hz in
// A-law). The caller's flow enqueues it and it hears the wait flow; the agent's flow is a
// `dequeue` verb, which takes the caller and connects the two live calls (the RTP engine's
// bus of two). Each call's recording, channel 0 (what we sent it), proves the audio both ways:
// the caller hears the agent's tone and the agent the caller's, and neither hears itself.
// The agent's hang-up sends the caller on to its next verb, a hangup.
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
const CALLER_FROM = '+14155550171';
const AGENT_FROM = '+14155550172';
const TO = '+14155550199';

let lv: LiveVoice;
let callerPort: number;
let agentPort: number;

before(async () => {
  if (!hasSipp) return;
  callerPort = await freeUdpPort();
  agentPort = await freeUdpPort();
  lv = await startLiveVoice({
    rtp: [44400, 44498],
    trunks: [`{ name: sipp-caller, host: 127.0.0.1, port: ${callerPort}, codecs: [PCMU, PCMA] }`, `{ name: sipp-agent, host: 127.0.0.1, port: ${agentPort}, codecs: [PCMU, PCMA] }`],
    numbers: { [CALLER_FROM]: 'sipp-caller', [AGENT_FROM]: 'sipp-agent' },
  });
});

after(async () => {
  await lv?.close();
});

test('a dequeue verb on a live call takes a live caller from its queue and the two hear each other until the agent hangs up', { skip: !hasSipp, timeout: 90_000 }, async (ctx) => {
  const live = lv.live();
  const queue = await live.post('/v1/queues', { name: 'live-connect', wait_flow: [{ say: { text: 'Please hold.' } }, { pause: { seconds: 1 } }] });
  assert.equal(queue.status, 200, JSON.stringify(queue.body));
  const callerSipp = await runSipp({ scenario: toneTrunk(500, 'PCMU'), port: callerPort, timeoutSeconds: 80 });
  const agentSipp = await runSipp({ scenario: toneTrunk(800, 'PCMA'), port: agentPort, timeoutSeconds: 80 });
  const caller = await live.post('/v1/calls', { from: CALLER_FROM, to: TO, record: true, flow: [{ enqueue: { queue: 'live-connect' } }, { hangup: {} }] });
  assert.equal(caller.status, 200, JSON.stringify(caller.body));
  const callerId = caller.body.id as string;
  const joined = (e: ReceivedEvent) => e.type === 'call.queue.joined' && e.data.object.call_id === callerId;
  await lv.receiver.waitFor((events) => events.some(joined), 20_000);

  const agent = await live.post('/v1/calls', { from: AGENT_FROM, to: TO, record: true, flow: [{ dequeue: { queue: 'live-connect' } }, { hangup: {} }] });
  assert.equal(agent.status, 200, JSON.stringify(agent.body));
  const agentId = agent.body.id as string;
  const bridged = (e: ReceivedEvent) => e.type === 'call.queue.left' && e.data.object.call_id === callerId;
  const left = (await lv.receiver.waitFor((events) => events.some(bridged), 20_000)).find(bridged)!;
  assert.equal(left.data.object.result, 'bridged');
  const connectedAt = Date.now();
  const members = await live.get(`/v1/queues/${queue.body.id}`);
  assert.equal(members.body.current_size, 0);
  await sleep(4000);
  const hung = await live.post(`/v1/calls/${agentId}/hangup`);
  assert.equal(hung.body.status, 'completed');
  const hungAt = Date.now();

  // The caller's flow went on to its hangup: SIPp got both BYEs.
  for (const [name, sipp] of [['caller', callerSipp], ['agent', agentSipp]] as const) {
    const result = await sipp.done;
    assert.equal(result.code, 0, `SIPp ${name}: ${result.errors}`);
  }
  const callerDone = await live.get(`/v1/calls/${callerId}`);
  assert.equal(callerDone.body.status, 'completed');

  for (const [listener, id, heardHz, ownHz] of [['caller', callerId, 800, 500], ['agent', agentId, 500, 800]] as const) {
    const call = await live.get(`/v1/calls/${id}`);
    const at = (mark: number) => Math.round(((mark - Date.parse(call.body.answered_at)) / 1000) * RATE);
    const samples = (await lv.recordingOf(id)).samples[0]!;
    const start = at(connectedAt) + RATE;
    const length = at(hungAt) - RATE / 2 - start;
    assert.ok(length >= RATE, `a second or more of the ${listener}'s audio while connected`);
    const other = toneShare(samples, heardHz, start, length);
    const own = toneShare(samples, ownHz, start, length);
    ctx.diagnostic(`the ${listener} hears the other at share ${other.toFixed(3)}, itself at ${own.toFixed(3)}`);
    assert.ok(other > 0.5, `the ${listener} hears the other party: ${other}`);
    assert.ok(own < 0.02, `the ${listener} does not hear itself: ${own}`);
  }
});
