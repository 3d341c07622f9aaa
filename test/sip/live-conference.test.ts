// Issue 25, a conference of three live calls: three SIPp trunks each answer one of our calls
// and send a tone of their own pitch (A 500 Hz and C 1300 Hz in µ-law, B 800 Hz in A-law); each
// call's flow is one `conference` verb, then `hangup`. Everything is driven through HTTP and
// observed through webhooks to a real receiver and each call's recording, whose channel 0 is
// what we sent that leg (the mix it heard, as encoded onto its RTP). What proves the mixing:
// while all three talk, each leg hears the other two pitches and never its own; once B is
// muted nobody hears B; once C coaches A only A hears C; a held B hears the hold tone and
// nothing else; joins are beeped to those already there. Then POST .../end sends every
// participant on to its `hangup`, and the conference's recording (A's verb asked for it) holds
// the room: everyone heard, the coach and the held not. A second conference shows the wait
// (hold tone until a start_on_enter participant joins) and end_on_exit.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { freeUdpPort, peerAvailable, runSipp, type SippRun } from '../helpers/sipp.ts';
import { toneTrunk } from '../helpers/tone-trunk.ts';
import { startLiveVoice, type LiveVoice } from '../helpers/live-voice.ts';
import { toneShare } from '../helpers/audio-match.ts';
import type { G711Codec } from '../../src/carriers/rtp/g711.ts';
import type { ReceivedEvent } from '../helpers/webhook-receiver.ts';
import { decodeWav } from '../../src/media/wav.ts';

const hasSipp = peerAvailable('sipp');
const RATE = 8000;
const TO = '+14155550199';
const PHASE_MS = 3500;
/** Samples left out after each change (the change's commit, the jitter buffers) and before the next. */
const SETTLE = RATE * 0.8;
const MARGIN = RATE * 0.4;
const ROOM_MARGIN = RATE * 1.5;

interface Party {
  name: string;
  from: string;
  hz: number;
  codec: G711Codec;
  trunkPort: number;
  sipp?: SippRun;
  callId?: string;
}

const parties: Party[] = [
  { name: 'A', from: '+14155550161', hz: 500, codec: 'PCMU', trunkPort: 0 },
  { name: 'B', from: '+14155550162', hz: 800, codec: 'PCMA', trunkPort: 0 },
  { name: 'C', from: '+14155550163', hz: 1300, codec: 'PCMU', trunkPort: 0 },
];
const [A, B, C] = parties as [Party, Party, Party];

let lv: LiveVoice;

before(async () => {
  if (!hasSipp) return;
  for (const party of parties) party.trunkPort = await freeUdpPort();
  lv = await startLiveVoice({
    rtp: [44300, 44398],
    trunks: parties.map((p) => `{ name: sipp-${p.name.toLowerCase()}, host: 127.0.0.1, port: ${p.trunkPort}, codecs: [PCMU, PCMA] }`),
    numbers: Object.fromEntries(parties.map((p) => [p.from, `sipp-${p.name.toLowerCase()}`])),
  });
});

after(async () => {
  for (const party of parties) party.sipp?.process.kill('SIGKILL');
  await lv?.close();
});

/** Events of the conference: its own (the conference is the object) and its participants' (which name it). */
const ofConference = (conferenceId: string, type: string) => (e: ReceivedEvent) => e.type === type && (e.data.object.conference_id ?? e.data.object.id) === conferenceId;

test('three live calls in one conference: each hears the other two and never itself; mute, coach and hold change who hears whom; joins beep; end sends them on; the conference recording holds the room', { skip: !hasSipp, timeout: 120_000 }, async (ctx) => {
  const live = lv.live();
  const marks: Record<string, number> = {};
  for (const party of parties) {
    party.sipp = await runSipp({ scenario: toneTrunk(party.hz, party.codec), port: party.trunkPort, timeoutSeconds: 90 });
    const placed = await live.post('/v1/calls', { from: party.from, to: TO, record: true, flow: [{ conference: { name: 'live-room', beep: true, record: party === A } }, { hangup: {} }] });
    assert.equal(placed.status, 200, JSON.stringify(placed.body));
    party.callId = placed.body.id as string;
    // One at a time, so each join is beeped to those already in.
    const joined = (e: ReceivedEvent) => e.type === 'conference.participant.joined' && e.data.object.call_id === party.callId;
    await lv.receiver.waitFor((events) => events.some(joined), 20_000);
  }
  marks.all = Date.now();
  const listed = await live.get('/v1/conferences?name=live-room');
  const conference = listed.body.data[0];
  assert.equal(conference.status, 'in_progress');
  assert.equal(conference.participant_count, 3);
  const conferenceId = conference.id as string;
  const participants = await live.get(`/v1/conferences/${conferenceId}/participants?status=joined`);
  assert.deepEqual(participants.body.data.map((p: { call_id: string }) => p.call_id).sort(), parties.map((p) => p.callId).sort());

  await sleep(PHASE_MS);
  const patch = async (party: Party, body: object) => {
    const res = await live.patch(`/v1/conferences/${conferenceId}/participants/${party.callId}`, body);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body;
  };
  assert.equal((await patch(B, { muted: true })).muted, true);
  marks.muted = Date.now();
  await sleep(PHASE_MS);
  await patch(B, { muted: false });
  assert.equal((await patch(C, { coach_call_id: A.callId })).coach_call_id, A.callId);
  marks.coach = Date.now();
  await sleep(PHASE_MS);
  await patch(C, { coach_call_id: null });
  assert.equal((await patch(B, { hold: true })).hold, true);
  marks.hold = Date.now();
  await sleep(PHASE_MS);
  const ended = await live.post(`/v1/conferences/${conferenceId}/end`);
  assert.equal(ended.status, 200, JSON.stringify(ended.body));
  marks.end = Date.now();

  // Each call went on to its hangup: SIPp got our BYE and its scenario passed.
  for (const party of parties) {
    const result = await party.sipp!.done;
    assert.equal(result.code, 0, `SIPp ${party.name}: ${result.errors}`);
  }
  const events = await lv.receiver.waitFor((all) => all.some(ofConference(conferenceId, 'conference.ended')) && all.filter(ofConference(conferenceId, 'conference.participant.left')).length === 3, 20_000);
  assert.equal(events.filter(ofConference(conferenceId, 'conference.started')).length, 1);
  assert.equal(events.filter(ofConference(conferenceId, 'conference.participant.updated')).length, 5);
  const done = await live.get(`/v1/conferences/${conferenceId}`);
  assert.deepEqual([done.body.status, done.body.participant_count], ['completed', 0]);

  // What each leg heard, between the marks, in its own recording's time (from its answer).
  const recordingOf = async (which: (object: { call_id: string; conference_id: string | null }) => boolean) => {
    const ready = (e: ReceivedEvent) => e.type === 'call.recording.ready' && which(e.data.object);
    const event = (await lv.receiver.waitFor((all) => all.some(ready), 30_000)).find(ready)!;
    const media = await fetch(`${lv.t.url}/v1/recordings/${event.data.object.id}/media`, { headers: { authorization: `Bearer ${lv.acct.keys.live}` } });
    assert.equal(media.status, 200);
    return decodeWav(Buffer.from(await media.arrayBuffer())).samples[0]!;
  };
  const heard = new Map<Party | 'room', { samples: Int16Array; at: (mark: number) => number }>();
  for (const party of parties) {
    const call = await live.get(`/v1/calls/${party.callId}`);
    const answered = Date.parse(call.body.answered_at);
    const samples = await recordingOf((r) => r.call_id === party.callId && r.conference_id === null);
    heard.set(party, { samples, at: (mark) => Math.round(((mark - answered) / 1000) * RATE) });
  }
  // The conference's recording runs from its start (A's join).
  const room = await recordingOf((r) => r.conference_id === conferenceId);
  heard.set('room', { samples: room, at: (mark) => Math.round(((mark - Date.parse(done.body.started_at)) / 1000) * RATE) });
  const share = (listener: Party | 'room', hz: number, from: string, to: string) => {
    const { samples, at } = heard.get(listener)!;
    const start = at(marks[from]!) + SETTLE;
    // The room's tap starts a moment after the conference's started_at (later on a loaded
    // machine), which shifts its audio later than that time base says: a longer tail margin.
    const length = at(marks[to]!) - (listener === 'room' ? ROOM_MARGIN : MARGIN) - start;
    assert.ok(length >= RATE, `a second or more of ${listener === 'room' ? 'the room' : listener.name}'s audio between ${from} and ${to}`);
    return toneShare(samples, hz, start, length);
  };
  const HEARD = 0.15;
  const ABSENT = 0.02;
  const expectations: Array<[string, string, Party, Party, boolean]> = [
    ['all', 'muted', A, B, true], ['all', 'muted', A, C, true], ['all', 'muted', A, A, false],
    ['all', 'muted', B, A, true], ['all', 'muted', B, C, true], ['all', 'muted', B, B, false],
    ['all', 'muted', C, A, true], ['all', 'muted', C, B, true], ['all', 'muted', C, C, false],
    // B muted: heard by nobody, hears both.
    ['muted', 'coach', A, B, false], ['muted', 'coach', C, B, false], ['muted', 'coach', A, C, true], ['muted', 'coach', B, A, true], ['muted', 'coach', B, C, true],
    // C coaches A: only A hears C; C still hears everyone.
    ['coach', 'hold', A, C, true], ['coach', 'hold', B, C, false], ['coach', 'hold', B, A, true], ['coach', 'hold', C, A, true], ['coach', 'hold', C, B, true],
    // B held: heard by nobody, hears nobody.
    ['hold', 'end', A, B, false], ['hold', 'end', C, B, false], ['hold', 'end', B, A, false], ['hold', 'end', B, C, false], ['hold', 'end', A, C, true],
  ];
  for (const [from, to, listener, speaker, expected] of expectations) {
    const measured = share(listener, speaker.hz, from, to);
    ctx.diagnostic(`${from}..${to}: ${listener.name} hears ${speaker.name} (${speaker.hz} Hz): share ${measured.toFixed(3)}`);
    if (expected) assert.ok(measured > HEARD, `${from}..${to}: ${listener.name} hears ${speaker.name}: ${measured}`);
    else assert.ok(measured < ABSENT, `${from}..${to}: ${listener.name} does not hear ${speaker.name}: ${measured}`);
  }
  const roomHears: Array<[string, string, Party, boolean]> = [
    ['all', 'muted', A, true], ['all', 'muted', B, true], ['all', 'muted', C, true],
    ['muted', 'coach', B, false], ['coach', 'hold', C, false], ['coach', 'hold', B, true], ['hold', 'end', B, false], ['hold', 'end', C, true],
  ];
  for (const [from, to, speaker, expected] of roomHears) {
    const measured = share('room', speaker.hz, from, to);
    ctx.diagnostic(`${from}..${to}: the recording holds ${speaker.name}: share ${measured.toFixed(3)}`);
    if (expected) assert.ok(measured > HEARD, `${from}..${to}: the conference recording holds ${speaker.name}: ${measured}`);
    else assert.ok(measured < ABSENT, `${from}..${to}: the conference recording does not hold ${speaker.name}: ${measured}`);
  }
  const holdTone = share(B, 440, 'hold', 'end');
  // The hold tone sounds one second in two: half the window's coherent share at most.
  assert.ok(holdTone > 0.3, `held B hears the hold tone: ${holdTone}`);

  // C's join was beeped to A (880 Hz, a quarter second, over the room). The beep starts once
  // the join has committed, as its webhook goes out, so it may still be sounding when the test
  // sees that webhook: look up to a second past it (B's 800 Hz and C's 1300 Hz barely touch 880).
  const a = heard.get(A)!;
  let loudestBeep = 0;
  for (let at = 0; at + 2000 <= a.at(marks.all!) + 8000; at += 400) loudestBeep = Math.max(loudestBeep, toneShare(a.samples, 880, at, 2000));
  assert.ok(loudestBeep > 0.1, `A heard a join beep: share ${loudestBeep}`);
});

test('a live conference waits for its start_on_enter participant (the first hears the hold tone until then), and its end_on_exit participant leaving ends it for the other', { skip: !hasSipp, timeout: 90_000 }, async (ctx) => {
  const live = lv.live();
  const place = async (party: Party, conference: object) => {
    party.sipp = await runSipp({ scenario: toneTrunk(party.hz, party.codec), port: party.trunkPort, timeoutSeconds: 80 });
    const placed = await live.post('/v1/calls', { from: party.from, to: TO, record: true, flow: [{ conference: { name: 'live-wait', beep: false, ...conference } }, { hangup: {} }] });
    assert.equal(placed.status, 200, JSON.stringify(placed.body));
    party.callId = placed.body.id as string;
    const joined = (e: ReceivedEvent) => e.type === 'conference.participant.joined' && e.data.object.call_id === party.callId;
    return (await lv.receiver.waitFor((events) => events.some(joined), 20_000)).find(joined)!.data.object.conference_id as string;
  };
  const conferenceId = await place(A, { start_on_enter: false });
  const waitingFrom = Date.now();
  assert.equal((await live.get(`/v1/conferences/${conferenceId}`)).body.status, 'waiting');
  await sleep(PHASE_MS);
  assert.equal(await place(B, { end_on_exit: true }), conferenceId);
  const startedAt = Date.now();
  await lv.receiver.waitFor((events) => events.some(ofConference(conferenceId, 'conference.started')), 20_000);
  await sleep(PHASE_MS);
  const hung = await live.post(`/v1/calls/${B.callId}/hangup`);
  assert.equal(hung.body.status, 'completed');
  const endedAt = Date.now();
  const events = await lv.receiver.waitFor((all) => all.some(ofConference(conferenceId, 'conference.ended')), 20_000);
  assert.equal(events.find(ofConference(conferenceId, 'conference.ended'))!.data.object.end_reason, 'end_on_exit');
  // A went on to its hangup: its SIPp got our BYE.
  for (const party of [A, B]) assert.equal((await party.sipp!.done).code, 0);

  const call = await live.get(`/v1/calls/${A.callId}`);
  const at = (mark: number) => Math.round(((mark - Date.parse(call.body.answered_at)) / 1000) * RATE);
  const wav = await lv.recordingOf(A.callId!);
  const heard = wav.samples[0]!;
  const waiting = { start: at(waitingFrom) + SETTLE, length: at(startedAt) - MARGIN - at(waitingFrom) - SETTLE };
  const talking = { start: at(startedAt) + SETTLE, length: at(endedAt) - MARGIN - at(startedAt) - SETTLE };
  const holdTone = toneShare(heard, 440, waiting.start, waiting.length);
  const bWhileWaiting = toneShare(heard, B.hz, waiting.start, waiting.length);
  const bInProgress = toneShare(heard, B.hz, talking.start, talking.length);
  ctx.diagnostic(`A while waiting: hold tone ${holdTone.toFixed(3)}; A once started: B ${bInProgress.toFixed(3)}`);
  assert.ok(holdTone > 0.3, `A hears the hold tone while the conference waits: ${holdTone}`);
  assert.ok(bWhileWaiting < 0.02, `A hears nothing of B before the start: ${bWhileWaiting}`);
  assert.ok(bInProgress > 0.5, `A hears B once the conference started: ${bInProgress}`);
});

test('POST .../participants dials a live participant in: it joins on answer and the two hear each other', { skip: !hasSipp, timeout: 90_000 }, async (ctx) => {
  const live = lv.live();
  A.sipp = await runSipp({ scenario: toneTrunk(A.hz, A.codec), port: A.trunkPort, timeoutSeconds: 80 });
  const placed = await live.post('/v1/calls', { from: A.from, to: TO, record: true, flow: [{ conference: { name: 'live-dial-in', beep: false } }, { hangup: {} }] });
  assert.equal(placed.status, 200, JSON.stringify(placed.body));
  A.callId = placed.body.id as string;
  const joinedBy = (callId: () => string | undefined) => (e: ReceivedEvent) => e.type === 'conference.participant.joined' && e.data.object.call_id === callId();
  const conferenceId = (await lv.receiver.waitFor((events) => events.some(joinedBy(() => A.callId)), 20_000)).find(joinedBy(() => A.callId))!.data.object.conference_id as string;

  B.sipp = await runSipp({ scenario: toneTrunk(B.hz, B.codec), port: B.trunkPort, timeoutSeconds: 80 });
  const dialled = await live.post(`/v1/conferences/${conferenceId}/participants`, { to: TO, from: B.from });
  assert.equal(dialled.status, 200, JSON.stringify(dialled.body));
  B.callId = dialled.body.id as string;
  await lv.receiver.waitFor((events) => events.some(joinedBy(() => B.callId)), 20_000);
  // The dialled call records from now on (its own recording shows what it heard).
  const recording = await live.post(`/v1/calls/${B.callId}/recordings`, {});
  assert.equal(recording.status, 200, JSON.stringify(recording.body));
  const bothIn = Date.now();
  const aAnswered = Date.parse((await live.get(`/v1/calls/${A.callId}`)).body.answered_at);
  // Each recording's time 0: A's call's answer; B's recording's start (now, near enough).
  const origin = new Map<Party, number>([[A, aAnswered], [B, bothIn]]);
  await sleep(PHASE_MS);
  const ended = await live.post(`/v1/conferences/${conferenceId}/end`);
  assert.equal(ended.status, 200, JSON.stringify(ended.body));
  const endedAt = Date.now();
  for (const party of [A, B]) assert.equal((await party.sipp!.done).code, 0, `SIPp ${party.name}`);

  for (const [listener, speaker] of [[A, B], [B, A]] as const) {
    const at = (mark: number) => Math.round(((mark - origin.get(listener)!) / 1000) * RATE);
    const heard = (await lv.recordingOf(listener.callId!)).samples[0]!;
    const start = Math.max(0, at(bothIn)) + SETTLE;
    const share = toneShare(heard, speaker.hz, start, at(endedAt) - MARGIN - start);
    ctx.diagnostic(`${listener.name} hears ${speaker.name}: share ${share.toFixed(3)}`);
    assert.ok(share > 0.5, `${listener.name} hears ${speaker.name}: ${share}`);
  }
});
