// Test lane: real-time (scripts/test.mjs): the sandbox conference's mixer runs on the wall clock
// (scale 1): starved at nice 19, two lines said two sandbox seconds apart were mixed in the wrong
// order.
// Issue 25, conferences in the sandbox, through HTTP only (both databases): three calls join
// one conference by name with the conference verb; the first waits (start_on_enter false) and
// hears the hold tone until the second starts it. Each participant says its own words (POST
// /v1/sandbox/calls/{id}/say) while the test moves the account's test clock; participants are
// muted, coached and held with PATCH, one is removed with DELETE (its flow goes on), an
// announcement is made, and the conference is ended. What each participant heard is its own
// call's recording (record: true; the flow's side, channel 0 of an outbound call, is what the
// conference sent it); the conference's recording (source conference) is what the room heard.
// Every participant hears the others and never itself; a muted one is heard by nobody; a
// coach only by its target; a held one hears the hold tone and is heard by nobody. Then: a
// full conference refuses a participant, and an inbound scripted caller waits with its
// wait_flow until a participant dialled in with POST .../participants starts the conference.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useSandboxAccount } from '../helpers/sandbox-account.ts';
import { decodeWav, type PcmAudio } from '../../src/media/wav.ts';
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
const PAST = 0.05;

const events = (type: string, conferenceId: string) => {
  const seen = new Map<string, ReceivedEvent>();
  for (const e of sandbox.receiver.events()) if (e.type === type && (e.data.object?.conference_id ?? e.data.object?.id) === conferenceId) seen.set(e.id, e);
  return [...seen.values()].sort((a, b) => a.sequence - b.sequence);
};
async function waitForCount(type: string, conferenceId: string, count: number): Promise<ReceivedEvent[]> {
  await sandbox.receiver.waitFor(() => events(type, conferenceId).length >= count, 20_000);
  return events(type, conferenceId);
}

/** A call with `conference` as its first verb and a goodbye after it, answered and seated. */
async function join(name: string, conference: Record<string, unknown>, goodbye: string): Promise<{ id: string }> {
  const flow = [{ conference: { name, ...conference } }, { say: { text: goodbye } }, { hangup: {} }];
  const res = await api().post('/v1/calls', { from: sandbox.from, to: MAGIC.staysUp, record: true, flow });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  await advance(1 + PAST);
  await sandbox.receiver.waitForEvent('call.answered', res.body.id);
  await waitForRunning(api(), res.body.id, 0);
  return { id: res.body.id };
}

async function say(callId: string, text: string): Promise<void> {
  const res = await api().post(`/v1/sandbox/calls/${callId}/say`, { text });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

async function patch(conferenceId: string, callId: string, body: Record<string, unknown>) {
  const res = await api().patch(`/v1/conferences/${conferenceId}/participants/${callId}`, body);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

async function readyRecording(id: string) {
  await sandbox.receiver.waitForEvent('call.recording.ready', id, 20_000);
  return (await api().get(`/v1/recordings/${id}`)).body;
}

async function media(id: string): Promise<PcmAudio> {
  const res = await fetch(`${sandbox.server.url}/v1/recordings/${id}/media`, { headers: { authorization: `Bearer ${sandbox.account.keys.sandbox}` } });
  assert.equal(res.status, 200);
  return decodeWav(Buffer.from(await res.arrayBuffer()));
}

function peak(wav: PcmAudio, channel: number, from: number, to: number): number {
  const samples = wav.samples[channel]!.subarray(Math.max(0, Math.ceil(from * wav.sampleRate)), Math.floor(to * wav.sampleRate));
  return samples.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
}

/** Simulated voices peak under 8000; the hold tone and the beep at 10000; comfort noise under 100. */
const TONE = 9000;
const LOUD = 1000;

/** The words on `channel` of a recording's transcript, as one string per segment. */
const linesOn = (recording: any, channel: number): string[] => recording.transcript.segments.filter((s: any) => s.channel === channel).map((s: any) => s.text);

/** The recording of a call made by its `record: true` (the call's own, not the conference's). */
async function callRecording(callId: string) {
  const call = (await api().get(`/v1/calls/${callId}`)).body;
  const listed = (await api().get(`/v1/recordings?call_id=${callId}`)).body.data.filter((r: any) => r.source === 'record');
  assert.equal(listed.length, 1, `call ${callId} has one recording of its own: ${JSON.stringify(call.recordings)}`);
  return readyRecording(listed[0].id);
}

describe('issue 25: a sandbox conference', () => {
  test('three participants: wait audio, mute, coach, hold, removal, announcement, end; events and recordings', async () => {
    const name = `support-${Date.now()}`;
    const a = await join(name, { start_on_enter: false, record: true }, 'A is back');
    const [joinedA] = await waitForCount('conference.participant.joined', (await api().get(`/v1/conferences?name=${name}`)).body.data[0].id, 1);
    const conferenceId = joinedA!.data.object.conference_id as string;
    let conference = (await api().get(`/v1/conferences/${conferenceId}`)).body;
    assert.deepEqual([conference.status, conference.participant_count, conference.recording_id], ['waiting', 1, null]);
    // A waits alone for 2 s (the hold tone), then B starts the conference and C joins.
    await advance(2);
    const b = await join(name, {}, 'B is back');
    await waitForCount('conference.started', conferenceId, 1);
    const c = await join(name, { beep: false }, 'C is back');
    await waitForCount('conference.participant.joined', conferenceId, 3);
    conference = (await api().get(`/v1/conferences/${conferenceId}`)).body;
    assert.equal(conference.status, 'in_progress');
    assert.equal(conference.participant_count, 3);
    assert.match(conference.recording_id, /^rec_/);

    await say(a.id, 'alpha apple');
    await advance(2);
    await say(b.id, 'bravo banana');
    await advance(2);
    assert.equal((await patch(conferenceId, b.id, { muted: true })).muted, true);
    await say(b.id, 'bravo hidden');
    await advance(2);
    assert.equal((await patch(conferenceId, c.id, { coach_call_id: a.id })).coach_call_id, a.id);
    await say(c.id, 'charlie whisper');
    await advance(2);
    const held = await patch(conferenceId, c.id, { coach_call_id: null, hold: true });
    assert.deepEqual([held.hold, held.coach_call_id], [true, null]);
    await say(a.id, 'alpha second');
    await advance(2);
    // C removed: its flow goes on with its next verb (the goodbye), then hangs up.
    const removed = await api().delete(`/v1/conferences/${conferenceId}/participants/${c.id}`);
    assert.equal(removed.status, 200, JSON.stringify(removed.body));
    assert.deepEqual([removed.body.status, removed.body.left_reason], ['left', 'removed']);
    await waitForRunning(api(), c.id, 1);
    await advance(2);
    await sandbox.receiver.waitForEvent('call.completed', c.id);
    const announced = await api().post(`/v1/conferences/${conferenceId}/announce`, { say: { text: 'closing now' } });
    assert.equal(announced.status, 200, JSON.stringify(announced.body));
    await advance(2);
    const ended = await api().post(`/v1/conferences/${conferenceId}/end`, {});
    assert.equal(ended.status, 200, JSON.stringify(ended.body));
    assert.deepEqual([ended.body.status, ended.body.end_reason, ended.body.participant_count], ['completed', 'api', 0]);
    // A and B go on with their goodbyes.
    await waitForRunning(api(), a.id, 1);
    await waitForRunning(api(), b.id, 1);
    await advance(2);
    await sandbox.receiver.waitForEvent('call.completed', a.id);
    await sandbox.receiver.waitForEvent('call.completed', b.id);

    // The flow log of the removed participant: the conference verb, left, then the goodbye.
    const flowC = await waitForFlow(api(), c.id, (f) => f.log.length >= 3);
    assert.deepEqual(flowC.log.slice(0, 3).map((e: any) => [e.verb, e.result?.reason ?? null]), [['conference', 'left'], ['say', 'finished'], ['hangup', null]]);
    assert.equal(flowC.log[0].result.conference_id, conferenceId);

    // Events, in order on the conference's sequence.
    assert.equal((await waitForCount('conference.ended', conferenceId, 1)).length, 1);
    const left = await waitForCount('conference.participant.left', conferenceId, 3);
    assert.deepEqual([left[0]!.data.object.call_id, left[0]!.data.object.left_reason], [c.id, 'removed']);
    assert.deepEqual(left.slice(1).map((e) => [e.data.object.call_id, e.data.object.left_reason]).sort(), [[a.id, 'conference_ended'], [b.id, 'conference_ended']].sort());
    const updated = await waitForCount('conference.participant.updated', conferenceId, 3);
    assert.deepEqual(updated.map((e) => [e.data.object.call_id, e.data.object.muted, e.data.object.hold, e.data.object.coach_call_id]), [
      [b.id, true, false, null], [c.id, false, false, a.id], [c.id, false, true, null],
    ]);
    const list = (await api().get(`/v1/conferences/${conferenceId}/participants`)).body;
    assert.deepEqual(list.data.map((p: any) => p.call_id).sort(), [a.id, b.id, c.id].sort());
    assert.ok(list.data.every((p: any) => p.status === 'left'));
    const byStatus = (await api().get(`/v1/conferences?status=completed&name=${name}`)).body;
    assert.deepEqual(byStatus.data.map((x: any) => x.id), [conferenceId]);
    assert.deepEqual((await api().get(`/v1/conferences?status=in_progress&name=${name}`)).body.data, []);

    // The room: everyone not muted, held or coaching, and the announcement.
    const room = await readyRecording(conference.recording_id);
    assert.deepEqual([room.source, room.conference_id, room.channels], ['conference', conferenceId, 1]);
    assert.deepEqual(room.transcript.segments.map((s: any) => s.text), ['alpha apple', 'bravo banana', 'alpha second', 'closing now']);
    const roomWav = await media(room.id);
    for (const segment of room.transcript.segments) assert.ok(peak(roomWav, 0, segment.start, segment.end) > LOUD, `the room hears "${segment.text}"`);

    // A heard B, C's whisper and the announcement, never itself; its own words are on its side (channel 1).
    const recA = await callRecording(a.id);
    assert.deepEqual(linesOn(recA, 0), ['bravo banana', 'charlie whisper', 'closing now', 'A is back']);
    assert.deepEqual(linesOn(recA, 1), ['alpha apple', 'alpha second']);
    const wavA = await media(recA.id);
    assert.ok(peak(wavA, 0, 0.05, 0.95) > TONE, 'A waited with the hold tone');
    // B heard A and the announcement; not C's whisper, not itself.
    const recB = await callRecording(b.id);
    assert.deepEqual(linesOn(recB, 0), ['alpha apple', 'alpha second', 'closing now', 'B is back']);
    assert.deepEqual(linesOn(recB, 1), ['bravo banana', 'bravo hidden']);
    // C heard A and B until it was held; held, it heard the hold tone and not "alpha second".
    const recC = await callRecording(c.id);
    assert.deepEqual(linesOn(recC, 0), ['alpha apple', 'bravo banana', 'C is back']);
    assert.deepEqual(linesOn(recC, 1), ['charlie whisper']);
    const wavC = await media(recC.id);
    // The test clock also runs in real time between requests, so the hold is found in the
    // audio, not computed: C has no beep of its own and nobody joined after it, so every
    // sample louder than a voice on its channel 0 is the hold tone, heard after its whisper
    // (the PATCH that held it came then) and before its goodbye, for at least its first 1 s.
    const [whisper] = recC.transcript.segments.filter((x: any) => x.text === 'charlie whisper');
    const [goodbyeC] = recC.transcript.segments.filter((x: any) => x.text === 'C is back');
    const tone = [...wavC.samples[0]!.keys()].filter((i) => Math.abs(wavC.samples[0]![i]!) > TONE).map((i) => i / 8000);
    assert.ok(tone.length > 0, 'held, C hears the hold tone');
    assert.ok(tone[0]! > whisper.end && tone.at(-1)! < goodbyeC.start, `the tone (${tone[0]}..${tone.at(-1)}) only while held, between ${whisper.end} and ${goodbyeC.start}`);
    assert.ok(tone.at(-1)! - tone[0]! > 0.95, 'its first second at least');
  });

  test('a participant beyond max_participants is refused: its verb ends with reason full and its flow goes on', async () => {
    const name = `small-${Date.now()}`;
    const first = await join(name, { max_participants: 2 }, 'one');
    await join(name, {}, 'two');
    const res = await api().post('/v1/calls', { from: sandbox.from, to: MAGIC.staysUp, flow: [{ conference: { name } }, { say: { text: 'the room is full' } }] });
    assert.equal(res.status, 200);
    await advance(1 + PAST);
    const flow = await waitForFlow(api(), res.body.id, (f) => f.log.some((e: any) => e.index === 1));
    const conferenceId = (await api().get(`/v1/conferences?name=${name}`)).body.data[0].id;
    assert.deepEqual(flow.log[0].result, { conference_id: conferenceId, reason: 'full' });
    assert.equal((await api().get(`/v1/conferences/${conferenceId}`)).body.participant_count, 2);
    // The last one to leave ends it.
    await api().post(`/v1/calls/${first.id}/hangup`, {});
    const end = await api().post(`/v1/conferences/${conferenceId}/end`, {});
    assert.equal(end.body.status, 'completed');
    const patched = await api().patch(`/v1/conferences/${conferenceId}/participants/${first.id}`, { muted: true });
    assert.equal(patched.status, 409);
    assert.equal(patched.body.code, 'participant_not_in_conference');
    const announce = await api().post(`/v1/conferences/${conferenceId}/announce`, { say: { text: 'anyone' } });
    assert.equal(announce.body.code, 'conference_completed');
  });

  test('an inbound scripted caller waits with its wait_flow, a participant dialled in starts the conference, the caller\'s script speaks to it', async () => {
    const name = `inbound-${Date.now()}`;
    const available = await api().get('/v1/numbers/available?limit=50');
    const taken = new Set(((await api().get('/v1/numbers?limit=100')).body.data as any[]).map((n) => n.phone_number));
    const pick = (available.body.data as any[]).find((n) => !taken.has(n.phone_number) && n.capabilities.includes('voice'));
    const number = (await api().post('/v1/numbers', { phone_number: pick.phone_number })).body;
    const patched = await api().patch(`/v1/numbers/${number.id}`, {
      voice_flow: [{ conference: { name, start_on_enter: false, record: true, wait_flow: [{ say: { text: 'please hold for the agent' } }] } }],
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    const inbound = await api().post('/v1/sandbox/inbound_calls', { from: '+14155550177', to: number.phone_number, caller_script: [{ wait: 6 }, { say: 'hello from the script' }] });
    assert.equal(inbound.status, 200, JSON.stringify(inbound.body));
    await waitForRunning(api(), inbound.body.id, 0);
    const tap = await api().post(`/v1/calls/${inbound.body.id}/recordings`, { channels: 2 });
    assert.equal(tap.status, 200, JSON.stringify(tap.body));
    const conferenceId = (await api().get(`/v1/conferences?name=${name}`)).body.data[0].id;
    await advance(2);
    // The agent is dialled in: an outbound call whose flow joins this conference on answer.
    const dialled = await api().post(`/v1/conferences/${conferenceId}/participants`, { to: MAGIC.staysUp, from: sandbox.from });
    assert.equal(dialled.status, 200, JSON.stringify(dialled.body));
    assert.match(dialled.body.id, /^call_/);
    await advance(1 + PAST);
    await waitForCount('conference.started', conferenceId, 1);
    // The script's wait ends (6 s after the answer) and it speaks to the conference at once.
    await advance(4);
    await advance(2);
    const ended = await api().post(`/v1/conferences/${conferenceId}/end`, {});
    assert.equal(ended.body.status, 'completed');
    await sandbox.receiver.waitForEvent('call.completed', inbound.body.id);
    await sandbox.receiver.waitForEvent('call.completed', dialled.body.id);

    const participants = (await api().get(`/v1/conferences/${conferenceId}/participants?status=left`)).body.data;
    assert.deepEqual(participants.map((p: any) => [p.call_id, p.left_reason]).sort(), [[inbound.body.id, 'conference_ended'], [dialled.body.id, 'conference_ended']].sort());
    const room = await readyRecording(ended.body.recording_id);
    assert.deepEqual(room.transcript.segments.map((x: any) => x.text), ['hello from the script']);
    // The caller's own recording (inbound: the caller on channel 0, what the flow sent it on 1).
    const recording = await readyRecording(tap.body.id);
    assert.deepEqual(linesOn(recording, 0), ['hello from the script']);
    // The tap started a moment after the answer (the test clock runs in real time too), so the
    // first pass may be clipped at its start; the next pass starts over, and is cut where the
    // conference started.
    const [firstPass, secondPass] = linesOn(recording, 1);
    assert.ok(firstPass && 'please hold for the agent'.endsWith(firstPass), `it waited with its wait_flow: ${firstPass}`);
    assert.ok(secondPass && 'please hold for the agent'.startsWith(secondPass), `looped: ${secondPass}`);
    assert.ok(!linesOn(recording, 1).includes('hello from the script'), 'it never hears itself');
  });
});
