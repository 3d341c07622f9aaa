// Test lane: real-time (scripts/test.mjs): the sandbox conference's mixer runs on the wall clock
// (scale 1): starved at nice 19, the conference never started within the test's wait.
// Issue 25, the conference verb's wait_url, in the sandbox through HTTP (both databases): a
// participant who starts waiting (no start_on_enter participant yet) has its wait flow
// answered by a real flow server on 127.0.0.1, asked with a signed POST naming the conference;
// it hears that answer, looped, until the conference starts (its own recording shows it). A
// verb with both wait_flow and wait_url is refused, naming the field; a participant who joins a
// conference in progress is not asked.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useSandboxAccount } from '../helpers/sandbox-account.ts';
import { startFlowServer, type FlowServer } from '../helpers/flow-server.ts';
import { MAGIC } from '../voice/voice-helpers.ts';
import { waitForRunning } from '../voice/flow-helpers.ts';

const sandbox = useSandboxAccount({ SWITCHBOARD_SIM_TIME_SCALE: '1' });
const api = () => sandbox.api();
let app: FlowServer;


async function advance(seconds: number): Promise<void> {
  const res = await api().post('/v1/sandbox/clock/advance', { seconds });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

async function place(flow: unknown[]): Promise<string> {
  const res = await api().post('/v1/calls', { from: sandbox.from, to: MAGIC.staysUp, record: true, flow });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  await advance(1.05);
  await sandbox.receiver.waitForEvent('call.answered', res.body.id);
  return res.body.id;
}

const linesOn = (recording: any, channel: number): string[] => recording.transcript.segments.filter((s: any) => s.channel === channel).map((s: any) => s.text);

describe('issue 25: a conference verb\'s wait_url', () => {
  before(async () => {
    app = await startFlowServer();
    app.secrets.push((await api().get('/v1/webhooks/default_secret')).body.secret);
  });
  after(async () => {
    await app.close();
  });

  test('both wait_flow and wait_url: 400 naming flow[0].conference.wait_url', async () => {
    const res = await api().post('/v1/calls', {
      from: sandbox.from, to: MAGIC.staysUp,
      flow: [{ conference: { name: 'both', wait_flow: [{ pause: { seconds: 1 } }], wait_url: `${app.url}/wait` } }],
    });
    assert.deepEqual([res.status, res.body.code], [400, 'validation_failed'], JSON.stringify(res.body));
    assert.deepEqual(res.body.errors.map((e: any) => e.field), ['flow[0].conference.wait_url']);
  });

  test('the waiting participant hears what the wait_url answers, looped, until the conference starts; one joining a started conference is not asked', async () => {
    const name = `hosted-${Date.now()}`;
    app.routes.set('/wait', [{ say: { text: 'the host joins soon' } }, { pause: { seconds: 1 } }]);
    const waiting = await place([{ conference: { name, start_on_enter: false, beep: false, wait_url: `${app.url}/wait` } }, { hangup: {} }]);
    const [asked] = await app.waitForRequests('/wait', 1);
    assert.equal(asked!.verified, true, 'signed with the account\'s default secret');
    const conferenceId = (await api().get(`/v1/conferences?name=${name}`)).body.data[0].id;
    assert.deepEqual(asked!.body, {
      object: 'conference_wait_request', call_id: waiting,
      conference: { id: conferenceId, name, status: 'waiting', participant_count: 1 },
    });
    await waitForRunning(api(), waiting, 0);
    // At least two whole passes (2.4 s each: four words and the pause) before the host starts
    // it, whatever part of a pass the recording began in: three passes' time.
    await advance(8);
    const host = await place([{ conference: { name, beep: false, wait_url: `${app.url}/wait` } }, { hangup: {} }]);
    await sandbox.receiver.waitFor((events) => events.some((e) => e.type === 'conference.started' && e.data.object.id === conferenceId), 20_000);
    await advance(2);
    const ended = await api().post(`/v1/conferences/${conferenceId}/end`, {});
    assert.equal(ended.status, 200, JSON.stringify(ended.body));
    await sandbox.receiver.waitForEvent('call.completed', waiting);
    await sandbox.receiver.waitForEvent('call.completed', host);
    assert.equal(app.requests.filter((r) => r.path === '/wait').length, 1, 'the host joined a started conference: nothing to wait for, nothing asked');

    const recordingId = (await api().get(`/v1/recordings?call_id=${waiting}`)).body.data.find((r: any) => r.source === 'record').id;
    await sandbox.receiver.waitForEvent('call.recording.ready', recordingId, 20_000);
    const recording = (await api().get(`/v1/recordings/${recordingId}`)).body;
    const heard = linesOn(recording, 0);
    assert.ok(heard.filter((line) => line === 'the host joins soon').length >= 2, `the answer looped while waiting: ${JSON.stringify(heard)}`);
    const flow = (await api().get(`/v1/calls/${waiting}/flow`)).body;
    assert.deepEqual(flow.log.slice(0, 2).map((e: any) => [e.verb, e.result?.reason ?? null]), [['conference', 'left'], ['hangup', null]]);
  });

  test('a participant removed while its wait_url is asked goes on with its flow (the late answer is not played)', async () => {
    const name = `hosted-bad-${Date.now()}`;
    app.routes.set('/slow', { delayMs: 1500, json: [{ hangup: {} }] });
    const id = await place([{ conference: { name, start_on_enter: false, wait_url: `${app.url}/slow` } }, { say: { text: 'moved on' } }, { hangup: {} }]);
    await app.waitForRequests('/slow', 1);
    const conferenceId = (await api().get(`/v1/conferences?name=${name}`)).body.data[0].id;
    const removed = await api().delete(`/v1/conferences/${conferenceId}/participants/${id}`);
    assert.equal(removed.status, 200, JSON.stringify(removed.body));
    await advance(3);
    await sandbox.receiver.waitForEvent('call.completed', id);
    const flow = (await api().get(`/v1/calls/${id}/flow`)).body;
    assert.deepEqual(flow.log.map((e: any) => [e.verb, e.result?.reason ?? null]), [['conference', 'left'], ['say', 'finished'], ['hangup', null]]);
  });
});
