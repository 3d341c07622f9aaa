import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useSandboxAccount } from '../helpers/sandbox-account.ts';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { decodeWav, type PcmAudio } from '../../src/media/wav.ts';
import { SIMULATED_PII } from '../../src/carriers/simulator/conversation-script.ts';
import { MAGIC, eventsOf } from './voice-helpers.ts';

const sandbox = useSandboxAccount();
const api = sandbox.api;

async function place(to: string, record: boolean) {
  const res = await api().post('/v1/calls', { from: sandbox.from, to, record });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

async function media(id: string): Promise<PcmAudio> {
  const res = await fetch(`${sandbox.server.url}/v1/recordings/${id}/media`, { headers: { authorization: `Bearer ${sandbox.account.keys.sandbox}` } });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'audio/wav');
  return decodeWav(Buffer.from(await res.arrayBuffer()));
}

/** Sample indexes [from, to) of a time range, as the redactor computes them. */
const samplesOf = (start: number, end: number, rate: number) => [Math.floor(start * rate + 1e-6), Math.ceil(end * rate - 1e-6)] as const;
/** Longest run of 0 samples, skipping the samples `ignore` accepts. */
function longestZeroRun(channel: Int16Array, ignore: (i: number) => boolean): number {
  let longest = 0;
  let run = 0;
  for (let i = 0; i < channel.length; i++) {
    run = channel[i] === 0 && !ignore(i) ? run + 1 : 0;
    longest = Math.max(longest, run);
  }
  return longest;
}
const peak = (channel: Int16Array, from: number, to: number) => {
  let max = 0;
  for (let i = from; i < to; i++) max = Math.max(max, Math.abs(channel[i]!));
  return max;
};

describe('record: true', () => {
  let recording: any;

  test('starts a recording on answer; the end of the call makes it ready with call.recording.ready', async () => {
    const call = await place(MAGIC.pii, true);
    assert.equal(call.recording, true);
    const ready = await sandbox.receiver.waitForEvent('call.recording.ready', undefined, 20_000);
    recording = ready.data.object;
    assert.match(recording.id, /^rec_/);
    assert.equal(recording.call_id, call.id);
    assert.equal(recording.status, 'ready');
    assert.equal(recording.source, 'record');
    assert.equal(recording.format, 'wav');
    assert.equal(recording.channels, 2);
    assert.equal(recording.sample_rate, 8000);
    assert.equal(recording.media_url, `${sandbox.server.url}/v1/recordings/${recording.id}/media`, 'absolute, on the public URL (default http://<host>:<port>)');
    assert.equal(recording.redacted, false);
    assert.ok(recording.transcript.segments.length > 5);
    assert.deepEqual(eventsOf(sandbox.receiver, recording.id).map((e) => e.type), ['call.recording.started', 'call.recording.stopped', 'call.recording.processing', 'call.recording.ready']);

    const ended = await sandbox.receiver.waitForEvent('call.completed', call.id);
    assert.deepEqual(ended.data.object.recordings, [recording.id]);
    assert.equal(recording.duration_seconds, ended.data.object.duration_seconds, 'the recording covers the whole talk time');
    const fetched = await api().get(`/v1/recordings/${recording.id}`);
    assert.deepEqual(fetched.body, recording);
  });

  test('GET media is a real WAV whose sound lines up with the transcript words', async () => {
    const audio = await media(recording.id);
    assert.equal(audio.sampleRate, 8000);
    assert.equal(audio.channels, 2);
    assert.equal(audio.samples[0]!.length, Math.round(recording.duration_seconds * 8000));
    const res = await fetch(recording.media_url, { headers: { authorization: `Bearer ${sandbox.account.keys.sandbox}` } });
    assert.equal(Number(res.headers.get('content-length')), recording.size_bytes);

    const voiced = new Set<number>();
    for (const segment of recording.transcript.segments) {
      const channel = audio.samples[segment.channel]!;
      for (const word of segment.words) {
        const [from, to] = samplesOf(word.start, word.end, 8000);
        assert.ok(peak(channel, from, to) > 1000, `"${word.text}" is audible at ${word.start}-${word.end}`);
        for (let i = from; i < to; i++) voiced.add(segment.channel * 1e9 + i);
      }
    }
    for (const c of [0, 1]) {
      const channel = audio.samples[c]!;
      assert.ok(longestZeroRun(channel, () => false) < 4, 'no digital silence before redaction (a voiced wave may cross 0 once)');
      for (let i = 0; i < channel.length; i++) {
        if (!voiced.has(c * 1e9 + i)) assert.ok(channel[i] !== 0 && Math.abs(channel[i]!) <= 40, `only comfort noise outside words (channel ${c}, sample ${i})`);
      }
    }
  });

  test('redact masks PII in the transcript and silences exactly those ranges in the audio, once', async () => {
    const res = await api().post(`/v1/recordings/${recording.id}/redact`, {});
    assert.equal(res.status, 200);
    const redacted = res.body;
    assert.equal(redacted.redacted, true);
    assert.deepEqual([...new Set(redacted.redactions.map((r: any) => r.type))].sort(), ['credit_card', 'email_address', 'phone_number', 'ssn']);
    const text = JSON.stringify(redacted);
    for (const value of Object.values(SIMULATED_PII)) assert.ok(!text.includes(value), `${value} is gone from the recording`);
    for (const token of ['4242', '6789', 'sam@example.com', '555-0134']) assert.ok(!text.includes(token), `${token} is gone`);
    assert.ok(text.includes('[REDACTED CREDIT_CARD]'));

    const audio = await media(recording.id);
    const silenced = new Set<number>();
    for (const range of redacted.redactions) {
      const [from, to] = samplesOf(range.start, range.end, 8000);
      assert.ok(to > from);
      for (const channel of audio.samples) for (let i = from; i < to; i++) assert.equal(channel[i], 0, `silent at ${i / 8000}s`);
      for (let i = from; i < to; i++) silenced.add(i);
    }
    for (const channel of audio.samples) {
      assert.ok(longestZeroRun(channel, (i) => silenced.has(i)) < 4, 'digital silence only where PII was');
    }

    const event = await sandbox.receiver.waitForEvent('call.recording.redacted', recording.id);
    assert.deepEqual(event.data.object.redactions, redacted.redactions);

    // issue 12: the earlier events (call.recording.ready carried the whole transcript) are scrubbed
    // too, as DELETE does: every stored event of the recording now shows the redacted words only.
    const stored = await api().get(`/v1/events?object_id=${recording.id}&limit=100`);
    assert.equal(stored.status, 200);
    const ready = stored.body.data.find((e: any) => e.type === 'call.recording.ready');
    assert.ok(ready, 'call.recording.ready is stored');
    assert.deepEqual(ready.data.object.transcript, redacted.transcript, 'it carries the redacted transcript');
    const storedText = JSON.stringify(stored.body);
    for (const token of [...Object.values(SIMULATED_PII), '4242', '6789', 'sam@example.com', '555-0134']) {
      assert.ok(!storedText.includes(token), `${token} is in no stored event of the recording`);
    }

    const again = await api().post(`/v1/recordings/${recording.id}/redact`, {});
    assert.equal(again.status, 200);
    assert.deepEqual(again.body.redactions, redacted.redactions);
    assert.deepEqual(again.body.transcript, redacted.transcript);
    const events = await api().get(`/v1/events?limit=100`);
    assert.equal(events.status, 200);
    assert.equal(events.body.data.filter((e: any) => e.type === 'call.recording.redacted' && e.data.object.id === recording.id).length, 1,
      'a repeat redaction changes nothing and emits nothing');
  });

  test('types narrows what is redacted', async () => {
    const call = await place(MAGIC.pii, true);
    const ready = await sandbox.receiver.waitForEvent('call.recording.ready', undefined, 20_000).then(() =>
      sandbox.receiver.waitFor((evs) => evs.some((e) => e.type === 'call.recording.ready' && e.data.object.call_id === call.id), 20_000));
    const rec = ready.find((e) => e.type === 'call.recording.ready' && e.data.object.call_id === call.id)!.data.object;
    const res = await api().post(`/v1/recordings/${rec.id}/redact`, { types: ['email_address'] });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.redactions.map((r: any) => r.type), ['email_address']);
    const text = JSON.stringify(res.body.transcript);
    assert.ok(!text.includes(SIMULATED_PII.emailAddress));
    assert.ok(text.includes('4242'), 'the card number stays when only e-mail is redacted');
    const bad = await api().post(`/v1/recordings/${rec.id}/redact`, { types: ['passport'] });
    assert.equal(bad.status, 400);
  });
});

describe('recordings controlled through the API', () => {
  test('start on a live call, pause, resume, stop (ready), restart, and the hang-up makes it ready again', async () => {
    const call = await place(MAGIC.staysUp, false);
    await sandbox.receiver.waitForEvent('call.answered', call.id);
    const started = await api().post(`/v1/calls/${call.id}/recordings`, {});
    assert.equal(started.status, 200, JSON.stringify(started.body));
    const id = started.body.id;
    assert.equal(started.body.status, 'recording');
    assert.equal(started.body.source, 'api');
    assert.equal(started.body.media_url, null);

    const notReady = await api().get(`/v1/recordings/${id}/media`);
    assert.equal(notReady.status, 409);
    assert.equal(notReady.body.code, 'recording_not_ready');
    assert.equal((await api().post(`/v1/recordings/${id}/redact`, {})).body.code, 'recording_not_ready');

    assert.equal((await api().post(`/v1/recordings/${id}/pause`)).body.status, 'paused');
    const twice = await api().post(`/v1/recordings/${id}/pause`);
    assert.equal(twice.status, 409);
    assert.equal(twice.body.code, 'invalid_state_transition');
    assert.equal((await api().post(`/v1/recordings/${id}/start`)).body.status, 'recording');
    const already = await api().post(`/v1/recordings/${id}/start`);
    assert.equal(already.status, 409);
    assert.equal((await api().post(`/v1/recordings/${id}/stop`)).body.status, 'stopped');
    await sandbox.receiver.waitForEvent('call.recording.ready', id);
    assert.equal((await api().get(`/v1/recordings/${id}`)).body.status, 'ready');

    const restarted = await api().post(`/v1/recordings/${id}/start`);
    assert.equal(restarted.status, 200);
    assert.equal(restarted.body.status, 'recording');
    assert.equal((await api().get(`/v1/calls/${call.id}`)).body.recordings[0], id);

    await api().post(`/v1/calls/${call.id}/hangup`);
    await sandbox.receiver.waitFor(() => eventsOf(sandbox.receiver, id).filter((e) => e.type === 'call.recording.ready').length === 2);
    assert.deepEqual(eventsOf(sandbox.receiver, id).map((e) => e.type), [
      'call.recording.started', 'call.recording.paused', 'call.recording.resumed', 'call.recording.stopped', 'call.recording.processing', 'call.recording.ready',
      'call.recording.started', 'call.recording.stopped', 'call.recording.processing', 'call.recording.ready',
    ]);
    const audio = await media(id);
    assert.equal(audio.channels, 2);

    const late = await api().post(`/v1/recordings/${id}/start`);
    assert.equal(late.status, 409);
    assert.equal(late.body.code, 'call_not_in_progress');
    // Stopping a recording that is no longer recording repeats safely: 200, unchanged.
    const before = await api().get(`/v1/recordings/${id}`);
    const stopReady = await api().post(`/v1/recordings/${id}/stop`);
    assert.equal(stopReady.status, 200);
    assert.deepEqual(stopReady.body, before.body);
    assert.equal(stopReady.body.failure, null);
    const onEnded = await api().post(`/v1/calls/${call.id}/recordings`, {});
    assert.equal(onEnded.status, 409);
    assert.equal(onEnded.body.code, 'call_not_in_progress');
  });

  test('a mono recording, and GET /v1/recordings filters with cursor pages', async () => {
    const call = await place(MAGIC.staysUp, true);
    await sandbox.receiver.waitForEvent('call.answered', call.id);
    // issue 10.15: `record: true` is recording already: a second recording is a 409 naming the first, and creates nothing.
    const [first] = (await api().get(`/v1/calls/${call.id}`)).body.recordings;
    const second = await api().post(`/v1/calls/${call.id}/recordings`, { channels: 1 });
    assert.equal(second.status, 409);
    assert.equal(second.body.code, 'recording_in_progress');
    assert.ok(second.body.detail.includes(first));
    assert.deepEqual((await api().get(`/v1/calls/${call.id}`)).body.recordings, [first]);
    assert.equal((await api().post(`/v1/recordings/${first}/stop`)).status, 200);
    const mono = await api().post(`/v1/calls/${call.id}/recordings`, { channels: 1 });
    assert.equal(mono.status, 200, JSON.stringify(mono.body));
    assert.equal(mono.body.channels, 1);
    // Restarting the first while the mono one records is refused the same way.
    const restart = await api().post(`/v1/recordings/${first}/start`);
    assert.equal(restart.status, 409);
    assert.equal(restart.body.code, 'recording_in_progress');
    await api().post(`/v1/calls/${call.id}/hangup`);
    await sandbox.receiver.waitFor(() => eventsOf(sandbox.receiver, mono.body.id).some((e) => e.type === 'call.recording.ready'));
    assert.equal((await media(mono.body.id)).channels, 1);

    const byCall = await api().get(`/v1/recordings?call_id=${call.id}`);
    assert.equal(byCall.body.data.length, 2);
    // issue 10.17: the same list under the call, with its own pages; an unknown call is a 404.
    const underCall = await api().get(`/v1/calls/${call.id}/recordings`);
    assert.equal(underCall.status, 200);
    assert.deepEqual(underCall.body.data, byCall.body.data);
    const underPage = await api().get(`/v1/calls/${call.id}/recordings?limit=1`);
    assert.equal(underPage.body.has_more, true);
    assert.equal(underPage.body.data[0].id, mono.body.id);
    assert.equal((await api().get('/v1/calls/call_01jd8x0v6kf5b9w3t2q1r0p9n8/recordings')).status, 404);
    assert.equal(byCall.body.data[0].id, mono.body.id, 'newest first');
    const page = await api().get(`/v1/recordings?call_id=${call.id}&limit=1`);
    assert.equal(page.body.has_more, true);
    const next = await api().get(`/v1/recordings?call_id=${call.id}&limit=1&starting_after=${page.body.next_cursor}`);
    assert.equal(next.body.data[0].id, byCall.body.data[1].id);
    assert.equal(next.body.has_more, false);
    const ready = await api().get('/v1/recordings?status=ready&limit=100');
    assert.ok(ready.body.data.every((r: any) => r.status === 'ready'));
    const none = await api().get(`/v1/recordings?created_lte=2000-01-01T00:00:00Z`);
    assert.deepEqual(none.body.data, []);
  });

  test('another mode cannot see a recording', async () => {
    const list = await api().get('/v1/recordings?limit=1');
    const id = list.body.data[0].id;
    const live = sandbox.server.as(sandbox.account.keys.live);
    assert.equal((await live.get(`/v1/recordings/${id}`)).status, 404);
    assert.equal((await live.get(`/v1/recordings/${id}/media`)).status, 404);
    assert.equal((await live.post(`/v1/recordings/${id}/redact`, {})).status, 404);
  });
});

// issue 10.17: media and transcript gone, irreversibly, with call.recording.deleted.
describe('DELETE /v1/recordings/{id}', () => {
  test('a recording still capturing is a 409; once ready, its file and transcript are gone for good and it shows deleted', async () => {
    const up = await place(MAGIC.staysUp, true);
    await sandbox.receiver.waitForEvent('call.answered', up.id);
    const [capturingId] = (await api().get(`/v1/calls/${up.id}`)).body.recordings;
    const capturing = await api().delete(`/v1/recordings/${capturingId}`);
    assert.equal(capturing.status, 409);
    assert.equal(capturing.body.code, 'recording_not_ready');
    assert.match(capturing.body.detail, new RegExp(`POST /v1/recordings/${capturingId}/stop`));
    assert.equal((await api().get(`/v1/recordings/${capturingId}`)).body.status, 'recording', 'the refused delete changed nothing');
    await api().post(`/v1/calls/${up.id}/hangup`);

    const call = await place(MAGIC.pii, true);
    const { id } = (await sandbox.receiver.waitFor((evs) => evs.some((e) => e.type === 'call.recording.ready' && e.data.object.call_id === call.id), 20_000))
      .find((e) => e.type === 'call.recording.ready' && e.data.object.call_id === call.id)!.data.object;
    const ready = (await api().get(`/v1/recordings/${id}`)).body;
    const file = join(sandbox.server.config.dataDir, 'recordings', sandbox.account.account.id, `${id}.wav`);
    assert.ok(existsSync(file), 'the WAV file is on disk while the recording is ready');
    const spoken = ready.transcript.segments[0].text as string;
    assert.ok(spoken.length > 5);

    const deleted = await api().delete(`/v1/recordings/${id}`);
    assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
    assert.equal(deleted.body.status, 'deleted');
    assert.deepEqual([deleted.body.media_url, deleted.body.transcript, deleted.body.size_bytes], [null, null, null]);
    assert.ok(deleted.body.timestamps.deleted);
    assert.equal(existsSync(file), false, 'the WAV file is gone from the data dir');
    assert.equal(existsSync(`${file}.partial`), false);

    const event = await sandbox.receiver.waitForEvent('call.recording.deleted', id);
    assert.equal(event.data.object.status, 'deleted');
    // Nothing of what was said survives in the recording's stored events (GET /v1/events, pending deliveries).
    const stored = await api().get(`/v1/events?object_id=${id}&limit=100`);
    assert.deepEqual(stored.body.data.map((e: any) => e.type).reverse(), ['call.recording.started', 'call.recording.stopped', 'call.recording.processing', 'call.recording.ready', 'call.recording.deleted']);
    assert.ok(!JSON.stringify(stored.body).includes(spoken), 'the transcript is scrubbed from earlier events');
    assert.ok(stored.body.data.every((e: any) => e.data.object.transcript === null && e.data.object.media_url === null));

    const gone = await api().get(`/v1/recordings/${id}/media`);
    assert.equal(gone.status, 410);
    assert.equal(gone.body.code, 'recording_deleted');
    assert.equal((await api().post(`/v1/recordings/${id}/redact`, {})).body.code, 'recording_deleted');
    assert.equal((await api().post(`/v1/recordings/${id}/start`)).body.code, 'recording_deleted');

    // Finishing actions repeat safely: the same recording, no second event.
    const again = await api().delete(`/v1/recordings/${id}`);
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, deleted.body);
    assert.deepEqual((await api().get(`/v1/recordings/${id}`)).body, deleted.body);
    assert.equal((await api().get(`/v1/recordings?status=deleted&call_id=${call.id}`)).body.data[0].id, id);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(eventsOf(sandbox.receiver, id).filter((e) => e.type === 'call.recording.deleted').length, 1);
  });

  test('another mode cannot delete it, and a key without recordings:write is refused', async () => {
    const [rec] = (await api().get('/v1/recordings?status=ready&limit=1')).body.data;
    assert.equal((await sandbox.server.as(sandbox.account.keys.live).delete(`/v1/recordings/${rec.id}`)).status, 404);
    const readOnly = await api().post('/v1/keys', { name: 'reader', scopes: ['recordings:read'] });
    assert.equal(readOnly.status, 200, JSON.stringify(readOnly.body));
    const refused = await sandbox.server.as(readOnly.body.secret).delete(`/v1/recordings/${rec.id}`);
    assert.equal(refused.status, 403);
    assert.equal(refused.body.code, 'insufficient_scope');
    assert.equal((await api().get(`/v1/recordings/${rec.id}`)).body.status, 'ready');
  });
});
