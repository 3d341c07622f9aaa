// Recordings of calls: started by a call's `record: true` on answer or by the API on a call
// in progress; paused, (re)started and stopped while the call is up; stopped with the call
// when it ends. The carrier's media port captures the audio and streams it, chunk by chunk,
// into a sink of ours (sinks.ts); when it closes the sink the file is complete and the
// recording is `ready`. Redaction masks PII in the transcript and zeroes the matching audio
// in place, keeping no unredacted copy. Deletion removes the audio and the transcript for good.
import { fetchPage, type PageInput } from '../../platform/pagination.ts';
import type { Platform } from '../../platform/context.ts';
import type { Clock } from '../../platform/clock.ts';
import type { EventEmitter } from '../../events/emit.ts';
import type { Mode } from '../../store/platform-tables.ts';
import { inTransaction, type Trx } from '../../store/transaction.ts';
import { newId } from '../../platform/ids.ts';
import { Problem, notFound } from '../../platform/problems.ts';
import { silenceWavFile } from '../../media/wav-file-silence.ts';
import { LINE_RATE } from '../../media/call-file.ts';
import type { MediaPort, VoiceCarriers } from '../../carriers/index.ts';
import type { CallRow } from '../calls/tables.ts';
import type { CallService, Caller } from '../calls/service.ts';
import { isFinal } from '../calls/states.ts';
import type { RecordingRow, RecordingSpan } from './tables.ts';
import { CAPTURING_STATUSES, transition, type RecordingStatus, type TransitionExtra } from './states.ts';
import { presentRecording, type Recording } from './presenter.ts';
import { MediaStore } from './media-store.ts';
import { PII_TYPES, redactSegments, type PiiType, type RedactedAudioRange } from './pii.ts';
import { FileRecordingSinks, type CapturedFile } from './sinks.ts';
import type { TranscriptSegment } from '../../telephony/transcript.ts';
import type { ConferenceMix } from '../../telephony/conference.ts';

const round3 = (s: number) => Math.round(s * 1000) / 1000;

export interface RecordingListFilter {
  limit: number;
  startingAfter?: string | undefined;
  callId?: string | undefined;
  conferenceId?: string | undefined;
  status?: RecordingStatus | undefined;
  createdGte?: string | undefined;
  createdLte?: string | undefined;
}

export class RecordingService {
  readonly media: MediaStore;
  /** Where media ports stream the audio they capture. */
  readonly sinks: FileRecordingSinks;

  constructor(
    private readonly platform: Platform,
    private readonly events: EventEmitter,
    private readonly calls: CallService,
    private readonly carriers: VoiceCarriers,
  ) {
    this.media = new MediaStore(platform.config.dataDir);
    this.sinks = new FileRecordingSinks(this.media, {
      captured: (id, file) => this.captured(id, file),
      failed: (id, reason) => this.finish(id, 'failed', { error: reason }),
    });
    // Recordings follow their call: `record: true` starts one on answer, and the end of the call stops them all.
    calls.onTransition(async (trx, call, from, clock) => {
      if (call.status === 'in_progress' && call.record === 1) await this.create(trx, call, 'record', 2, 0, clock);
      // However an answered call ends (completed, or failed when its media node died).
      if (from === 'in_progress' && isFinal(call.status)) await this.stopAll(trx, call, call.duration_seconds ?? 0, clock);
    });
  }

  private get db() {
    return this.platform.database.db;
  }

  private port(call: CallRow): MediaPort {
    return this.carriers.named(call.carrier).media;
  }

  /** The recording as the API shows it (media_url absolute on this server's public URL). */
  readonly present = (row: RecordingRow): Recording => presentRecording(row, this.platform.publicUrl.base);

  private deps(clock: Clock, webhookUrl: string | null) {
    return { events: this.events, clock, present: this.present, webhookUrl };
  }

  /**
   * A flow's record verb (FlowRecordings): the recording exists from now, status recording; the
   * media port's record operation captures it (the far end only, mono), not a tap of the call.
   */
  async startForFlow(trx: Trx, call: CallRow, clock: Clock): Promise<{ id: string; format: { channels: 1; sampleRate: typeof LINE_RATE } }> {
    const at = await this.port(call).elapsed(trx, call);
    const row = await this.create(trx, call, 'flow', 1, at, clock, false);
    return { id: row.id, format: { channels: 1, sampleRate: LINE_RATE } };
  }

  /** The record verb ended: the recording stops and is processed like one stopped by the API. */
  async stopForFlow(trx: Trx, call: CallRow, recordingId: string, clock: Clock): Promise<void> {
    const row = await this.lock(trx, recordingId);
    if (!row || row.status !== 'recording') return;
    await this.stop(trx, row, call, await this.port(call).elapsed(trx, call), clock);
  }

  /**
   * A conference with `record: true` started (ConferenceRecordings): its recording exists from
   * now, tied to `call` (the participant whose join started it) for its webhooks; the port
   * captures what the room hears, not a tap of that call.
   */
  async startForConference(trx: Trx, call: CallRow, mix: ConferenceMix, clock: Clock): Promise<string> {
    const row = await this.create(trx, call, 'conference', 1, 0, clock, false, mix.conferenceId);
    await this.conferenceMedia(call).startCapture(trx, mix, row.id, { channels: 1, sampleRate: LINE_RATE });
    return row.id;
  }

  /** The conference ended: its recording stops and is processed (call.recording.stopped, then ready). */
  async stopForConference(trx: Trx, recordingId: string, mix: ConferenceMix, clock: Clock): Promise<void> {
    const row = await this.lock(trx, recordingId);
    if (!row || row.status !== 'recording') return;
    const call = await trx.selectFrom('calls').selectAll().where('id', '=', row.call_id).executeTakeFirstOrThrow();
    const timestamps = JSON.parse(row.timestamps) as Record<string, string>;
    const seconds = (Date.parse(clock.now().toISOString()) - Date.parse(timestamps.recording ?? row.created_at)) / 1000 / this.platform.config.simTimeScale;
    await transition(trx, this.deps(clock, call.webhook_url), row, 'stopped', { spans: closeSpan(row.spans, Math.max(0, seconds)) });
    await this.conferenceMedia(call).stopCapture(trx, mix, row.id);
  }

  private conferenceMedia(call: CallRow) {
    const media = this.port(call).conferences;
    if (!media) throw new Error(`the ${call.carrier} carrier has no conferences`);
    return media;
  }

  private async create(trx: Trx, call: CallRow, source: 'record' | 'api' | 'flow' | 'conference', channels: 1 | 2, at: number, clock: Clock, tap = true, conferenceId: string | null = null): Promise<RecordingRow> {
    const now = clock.now().toISOString();
    const row: RecordingRow = {
      id: newId('recording'),
      account_id: call.account_id,
      mode: call.mode,
      call_id: call.id,
      conference_id: conferenceId,
      status: 'recording',
      source,
      channels,
      sample_rate: LINE_RATE,
      spans: JSON.stringify([{ start: at, end: null }] satisfies RecordingSpan[]),
      timestamps: JSON.stringify({ recording: now }),
      duration_ms: null,
      size_bytes: null,
      transcript: null,
      media_path: null,
      redacted: 0,
      redactions: '[]',
      error: null,
      created_at: now,
      updated_at: now,
    };
    await trx.insertInto('recordings').values(row).execute();
    if (tap) await this.port(call).startCapture(trx, call, row.id, { channels, sampleRate: LINE_RATE });
    await this.events.emit(trx, {
      accountId: row.account_id, mode: row.mode, type: 'call.recording.started', resourceType: 'recording', resourceId: row.id,
      object: this.present(row), webhookUrl: call.webhook_url, clock,
    });
    return row;
  }

  /** The call ended: every recording still capturing (or paused) stops at the call's end and is processed. */
  private async stopAll(trx: Trx, call: CallRow, at: number, clock: Clock): Promise<void> {
    // A conference's recording outlives the participant it is tied to: the conference stops it.
    const open = await trx.selectFrom('recordings').selectAll().where('call_id', '=', call.id)
      .where('status', 'in', ['recording', 'paused']).where('source', '!=', 'conference').orderBy('id').execute();
    for (const row of open) await this.stop(trx, row, call, at, clock);
    // Stopped earlier but not ready yet: the port is still writing it, and closes its sink when done.
  }

  private async stop(trx: Trx, row: RecordingRow, call: CallRow, at: number, clock: Clock): Promise<RecordingRow> {
    const next = await transition(trx, this.deps(clock, call.webhook_url), row, 'stopped', { spans: closeSpan(row.spans, at) });
    await this.port(call).stopCapture(trx, call, row.id);
    return next;
  }

  /** POST /v1/calls/{id}/recordings */
  async startOnCall(caller: Caller, callId: string, channels: 1 | 2): Promise<Recording> {
    return inTransaction(this.db, async (trx) => {
      const call = await this.calls.lockOwned(trx, caller.account.id, caller.mode, callId);
      if (call.status !== 'in_progress') {
        throw new Problem('call_not_in_progress', `Recordings start on a call in progress; call ${callId} is ${call.status}.`);
      }
      await this.assertNotRecording(trx, call.id, null);
      const at = await this.port(call).elapsed(trx, call);
      return this.present(await this.create(trx, call, 'api', channels, at, caller.clock));
    });
  }

  /**
   * One recording at a time per call: a second one while another is recording or paused is
   * a 409 naming it (the call row is locked, so two requests cannot both pass).
   */
  private async assertNotRecording(trx: Trx, callId: string, except: string | null): Promise<void> {
    let q = trx.selectFrom('recordings').select(['id', 'status']).where('call_id', '=', callId).where('status', 'in', ['recording', 'paused'])
      .where('source', '!=', 'conference');
    if (except) q = q.where('id', '!=', except);
    const open = await q.executeTakeFirst();
    if (open) {
      throw new Problem('recording_in_progress',
        `Call ${callId} is already being recorded by ${open.id} (${open.status}). Stop it first (POST /v1/recordings/${open.id}/stop), or resume it with POST /v1/recordings/${open.id}/start.`);
    }
  }

  /** The recording and its call, both locked (call first, the order every writer uses). */
  private async lockWithCall(trx: Trx, caller: Caller, id: string): Promise<{ row: RecordingRow; call: CallRow }> {
    const found = await trx.selectFrom('recordings').select('call_id')
      .where('id', '=', id).where('account_id', '=', caller.account.id).where('mode', '=', caller.mode).executeTakeFirst();
    if (!found) throw notFound('recording', id);
    const call = await this.calls.lockOwned(trx, caller.account.id, caller.mode, found.call_id);
    return { row: await this.lock(trx, id) as RecordingRow, call };
  }

  /**
   * For the media port's callbacks (no caller): the recording's call, then the recording, the
   * order the API's writers take them in. Locking the recording alone here deadlocked on
   * PostgreSQL with a restart of the same recording (call held, recording wanted).
   */
  private async lockCallThenRecording(trx: Trx, id: string): Promise<RecordingRow | undefined> {
    const found = await trx.selectFrom('recordings').select('call_id').where('id', '=', id).executeTakeFirst();
    if (!found) return undefined;
    await this.calls.lock(trx, found.call_id);
    return this.lock(trx, id);
  }

  private async lock(trx: Trx, id: string): Promise<RecordingRow | undefined> {
    let q = trx.selectFrom('recordings').selectAll().where('id', '=', id);
    if (this.platform.database.engine === 'postgres') q = q.forUpdate();
    return q.executeTakeFirst();
  }

  /** POST /v1/recordings/{id}/start: resumes a paused recording, or restarts a stopped or ready one, of a call in progress. */
  async start(caller: Caller, id: string): Promise<Recording> {
    return inTransaction(this.db, async (trx) => {
      const { row, call } = await this.lockWithCall(trx, caller, id);
      assertNotDeleted(row);
      assertNotFlowOwned(row, 'started again');
      if (row.status === 'recording') throw new Problem('invalid_state_transition', `Recording ${id} is already recording.`);
      if (call.status !== 'in_progress') {
        throw new Problem('call_not_in_progress', `Recording ${id} belongs to call ${call.id}, which is ${call.status}: only a live call can be recorded.`);
      }
      if (row.redacted === 1) throw new Problem('invalid_state_transition', `Recording ${id} was redacted and is final; start a new recording with POST /v1/calls/${call.id}/recordings.`);
      if (row.status === 'processing') throw new Problem('invalid_state_transition', `Recording ${id} is being processed; start it again once it is ready.`);
      await this.assertNotRecording(trx, call.id, row.id);
      const at = await this.port(call).elapsed(trx, call);
      const spans = [...(JSON.parse(row.spans) as RecordingSpan[]), { start: at, end: null }];
      await this.port(call).startCapture(trx, call, row.id, { channels: row.channels as 1 | 2, sampleRate: LINE_RATE });
      return this.present(await transition(trx, this.deps(caller.clock, call.webhook_url), row, 'recording', { spans: JSON.stringify(spans) }));
    });
  }

  /** POST /v1/recordings/{id}/pause */
  async pause(caller: Caller, id: string): Promise<Recording> {
    return inTransaction(this.db, async (trx) => {
      const { row, call } = await this.lockWithCall(trx, caller, id);
      assertNotFlowOwned(row, 'paused');
      const at = row.status === 'recording' ? await this.port(call).elapsed(trx, call) : 0;
      const next = await transition(trx, this.deps(caller.clock, call.webhook_url), row, 'paused', { spans: closeSpan(row.spans, at) });
      await this.port(call).pauseCapture(trx, call, row.id);
      return this.present(next);
    });
  }

  /** POST /v1/recordings/{id}/stop: stops capturing and processes what was captured. */
  async stopByApi(caller: Caller, id: string): Promise<Recording> {
    return inTransaction(this.db, async (trx) => {
      const { row, call } = await this.lockWithCall(trx, caller, id);
      // Finishing actions repeat safely (docs/api.md): a recording already stopped is returned as it is.
      if (row.status !== 'recording' && row.status !== 'paused') return this.present(row);
      assertNotFlowOwned(row, 'stopped through the API');
      const at = row.status === 'recording' ? await this.port(call).elapsed(trx, call) : 0;
      return this.present(await this.stop(trx, row, call, at, caller.clock));
    });
  }

  /** The port closed the sink: the file is complete, so the recording is ready (stopped -> processing -> ready). */
  private async captured(id: string, file: CapturedFile): Promise<void> {
    await inTransaction(this.db, async (trx) => {
      const current = await this.lockCallThenRecording(trx, id);
      // Restarted meanwhile (the next stop captures again), or a duplicate close: nothing to do.
      if (!current || (current.status !== 'stopped' && current.status !== 'processing')) return;
      const clock = await this.platform.sandboxClocks.clockFor(current.account_id, current.mode, trx);
      const call = await trx.selectFrom('calls').select('webhook_url').where('id', '=', current.call_id).executeTakeFirstOrThrow();
      const processing = current.status === 'stopped' ? await transition(trx, this.deps(clock, call.webhook_url), current, 'processing') : current;
      await transition(trx, this.deps(clock, call.webhook_url), processing, 'ready', {
        media_path: file.path, size_bytes: file.sizeBytes, duration_ms: file.durationMs, transcript: JSON.stringify(file.transcript), error: null,
      });
    });
  }

  private async finish(id: string, to: 'ready' | 'failed', extra: TransitionExtra): Promise<void> {
    await inTransaction(this.db, async (trx) => {
      const current = await this.lockCallThenRecording(trx, id);
      if (!current || (current.status !== 'processing' && current.status !== 'stopped')) return;
      const call = await trx.selectFrom('calls').select('webhook_url').where('id', '=', current.call_id).executeTakeFirstOrThrow();
      const clock = await this.platform.sandboxClocks.clockFor(current.account_id, current.mode, trx);
      const from = current.status === 'stopped' ? await transition(trx, this.deps(clock, call.webhook_url), current, 'processing') : current;
      await transition(trx, this.deps(clock, call.webhook_url), from, to, extra);
    });
  }

  /**
   * POST /v1/recordings/{id}/redact. Idempotent: PII already masked is not found again, so a
   * repeat changes nothing and emits nothing. The audio file is rewritten before the row
   * commits: if the commit fails, the audio is already silent and a retry redacts again.
   */
  async redact(caller: Caller, id: string, types: readonly PiiType[] = PII_TYPES): Promise<Recording> {
    return inTransaction(this.db, async (trx) => {
      const row = await this.lock(trx, id);
      if (!row || row.account_id !== caller.account.id || row.mode !== caller.mode) throw notFound('recording', id);
      assertNotDeleted(row);
      if (row.status !== 'ready' || !row.media_path || !row.transcript) {
        throw new Problem('recording_not_ready', `Recording ${id} is ${row.status}; it can be redacted once it is ready (call.recording.ready).`);
      }
      const { segments, ranges } = redactSegments(JSON.parse(row.transcript) as TranscriptSegment[], types);
      if (ranges.length === 0 && row.redacted === 1) return this.present(row);
      if (ranges.length > 0) await silenceWavFile(this.media.absolute(row.media_path), ranges);
      const redactions = [...(JSON.parse(row.redactions) as RedactedAudioRange[]), ...ranges]
        .sort((a, b) => a.start - b.start || a.channel - b.channel)
        .map((r) => ({ type: r.type, channel: r.channel, start: round3(r.start), end: round3(r.end) }));
      const now = caller.clock.now().toISOString();
      const changes = { transcript: JSON.stringify(segments), redacted: 1, redactions: JSON.stringify(redactions), updated_at: now };
      await trx.updateTable('recordings').set(changes).where('id', '=', id).execute();
      const next = { ...row, ...changes };
      // Earlier events (call.recording.ready, ...) carried the words now masked: they carry the redacted transcript from now on.
      if (ranges.length > 0) await this.scrubEventPayloads(trx, id, { transcript: this.present(next).transcript });
      const call = await trx.selectFrom('calls').select('webhook_url').where('id', '=', row.call_id).executeTakeFirstOrThrow();
      await this.events.emit(trx, {
        accountId: row.account_id, mode: row.mode, type: 'call.recording.redacted', resourceType: 'recording', resourceId: id,
        object: this.present(next), webhookUrl: call.webhook_url, clock: caller.clock,
      });
      return this.present(next);
    });
  }

  /**
   * DELETE /v1/recordings/{id}: the WAV file (and any partial file) leaves the data dir, the
   * transcript and media columns are cleared, and the transcript is scrubbed from the
   * recording's earlier events (GET /v1/events and pending webhook deliveries read them), so
   * nothing of the audio or its words stays. The recording itself remains, `deleted`, so ids
   * in a call's `recordings` still resolve and a repeat answers 200 (docs/api.md, finishing
   * actions). Files go before the commit, as with redaction: if the commit fails, a retry
   * deletes again; a crash never leaves audio behind a row that says deleted.
   */
  async delete(caller: Caller, id: string): Promise<Recording> {
    return inTransaction(this.db, async (trx) => {
      const { row, call } = await this.lockWithCall(trx, caller, id);
      if (row.status === 'deleted') return this.present(row);
      if (CAPTURING_STATUSES.includes(row.status)) {
        throw new Problem('recording_not_ready', `Recording ${id} is ${row.status}: ${row.status === 'processing' ? 'wait for call.recording.ready' : `stop it first (POST /v1/recordings/${id}/stop)`}, then delete it once it is ready.`);
      }
      const next = await transition(trx, this.deps(caller.clock, call.webhook_url), row, 'deleted', {
        transcript: null, media_path: null, size_bytes: null,
      });
      await this.scrubEventPayloads(trx, id, { transcript: null, media_url: null });
      await this.media.remove(row.media_path ?? this.media.pathFor(row.account_id, row.id));
      return this.present(next);
    });
  }

  /**
   * The recording's stored events keep their envelope, but what they showed of its words is
   * replaced: by nothing once it is deleted (transcript and media URL), by the redacted
   * transcript once it is redacted. GET /v1/events and pending webhook deliveries read these
   * rows, so no unredacted word is served again. An event from before the transcript existed
   * (transcript null) stays as it was.
   */
  private async scrubEventPayloads(trx: Trx, id: string, replace: Partial<Pick<Recording, 'transcript' | 'media_url'>>): Promise<void> {
    const events = await trx.selectFrom('events').select(['id', 'data']).where('resource_id', '=', id).execute();
    for (const event of events) {
      const data = JSON.parse(event.data) as Partial<Recording>;
      const scrubbed = { ...data };
      if ('transcript' in replace && data.transcript != null) scrubbed.transcript = replace.transcript!;
      if ('media_url' in replace && data.media_url != null) scrubbed.media_url = replace.media_url!;
      if (JSON.stringify(scrubbed) === event.data) continue;
      await trx.updateTable('events').set({ data: JSON.stringify(scrubbed) }).where('id', '=', event.id).execute();
    }
  }

  async get(accountId: string, mode: Mode, id: string): Promise<RecordingRow> {
    const row = await this.db.selectFrom('recordings').selectAll()
      .where('id', '=', id).where('account_id', '=', accountId).where('mode', '=', mode).executeTakeFirst();
    if (!row) throw notFound('recording', id);
    return row;
  }

  async mediaOf(accountId: string, mode: Mode, id: string) {
    const row = await this.get(accountId, mode, id);
    assertNotDeleted(row);
    if (row.status !== 'ready' || !row.media_path) {
      throw new Problem('recording_not_ready', `Recording ${id} is ${row.status}; its audio is available once it is ready.`);
    }
    return this.media.stream(row.media_path);
  }

  /** GET /v1/calls/{id}/recordings: 404 when the call is not this account's in this mode. */
  async listOfCall(caller: Caller, callId: string, page: PageInput): Promise<RecordingRow[]> {
    await this.calls.get(caller.account.id, caller.mode, callId);
    return this.list(caller.account.id, caller.mode, { ...page, callId });
  }

  async list(accountId: string, mode: Mode, f: RecordingListFilter): Promise<RecordingRow[]> {
    let q = this.db.selectFrom('recordings').selectAll().where('account_id', '=', accountId).where('mode', '=', mode);
    if (f.callId) q = q.where('call_id', '=', f.callId);
    if (f.conferenceId) q = q.where('conference_id', '=', f.conferenceId);
    if (f.status) q = q.where('status', '=', f.status);
    if (f.createdGte) q = q.where('created_at', '>=', new Date(f.createdGte).toISOString());
    if (f.createdLte) q = q.where('created_at', '<=', new Date(f.createdLte).toISOString());
    return fetchPage(q, f);
  }
}

function assertNotDeleted(row: RecordingRow): void {
  if (row.status === 'deleted') {
    throw new Problem('recording_deleted', `Recording ${row.id} was deleted (DELETE /v1/recordings/${row.id}); its audio and transcript no longer exist.`);
  }
}

/**
 * A flow's record verb owns its recording: the verb decides when it ends (finish key, silence,
 * max_length) and the flow moves on when it does, so pausing, stopping or restarting it through
 * the API would leave the verb waiting on a capture that no longer runs. The way to cut it
 * short is to move the call on (POST /v1/calls/{id}/flow), which ends the verb and processes
 * the recording.
 */
function assertNotFlowOwned(row: RecordingRow, action: string): void {
  if (row.source === 'conference') {
    throw new Problem('invalid_state_transition',
      `Recording ${row.id} is the recording of conference ${row.conference_id} and cannot be ${action}: it runs from the conference's start to its end (POST /v1/conferences/${row.conference_id}/end ends both).`);
  }
  if (row.source !== 'flow') return;
  throw new Problem('invalid_state_transition',
    `Recording ${row.id} is made by the record verb of call ${row.call_id}'s flow and cannot be ${action}: the verb ends it (finish key, silence or max_length). `
    + `To end it now, give the call its next flow with POST /v1/calls/${row.call_id}/flow; the recording is then processed and becomes ready.`);
}

/** Ends the open span at `at` (never before its start). */
function closeSpan(spansJson: string, at: number): string {
  const spans = JSON.parse(spansJson) as RecordingSpan[];
  const open = spans.at(-1);
  if (open && open.end === null) open.end = round3(Math.max(open.start, at));
  return JSON.stringify(spans);
}
