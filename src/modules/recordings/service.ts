// Recordings of calls: started by a call's `record: true` on answer or by the API on a call
// in progress; paused, (re)started and stopped while the call is up; stopped with the call
// when it ends; then processed (the carrier hands over audio and transcript, we store a
// WAV) and `ready`. Redaction masks PII in the transcript and zeroes the matching audio,
// overwriting the only copy.
import { fetchPage } from '../../platform/pagination.ts';
import type { Platform } from '../../platform/context.ts';
import type { Clock } from '../../platform/clock.ts';
import type { EventEmitter } from '../../events/emit.ts';
import type { Mode } from '../../store/platform-tables.ts';
import { inTransaction, type Trx } from '../../store/transaction.ts';
import { newId } from '../../platform/ids.ts';
import { Problem, notFound } from '../../platform/problems.ts';
import { decodeWav, encodeWav } from '../../media/wav.ts';
import type { VoiceCarriers } from '../../carriers/carrier.ts';
import type { CallRow } from '../calls/tables.ts';
import type { CallService, Caller } from '../calls/service.ts';
import type { RecordingRow, RecordingSpan } from './tables.ts';
import { transition, type RecordingStatus, type TransitionExtra } from './states.ts';
import { presentRecording, type Recording } from './presenter.ts';
import { MediaStore } from './media-store.ts';
import { PII_TYPES, redactSegments, silenceRanges, type PiiType, type RedactedAudioRange } from './pii.ts';
import type { TranscriptSegment } from './transcript.ts';

export const SAMPLE_RATE = 8000;
const PROCESS_JOB = 'recordings.process';
const PROCESS_ATTEMPTS = 5;
const round3 = (s: number) => Math.round(s * 1000) / 1000;

export interface RecordingListFilter {
  limit: number;
  startingAfter?: string | undefined;
  callId?: string | undefined;
  status?: RecordingStatus | undefined;
  createdGte?: string | undefined;
  createdLte?: string | undefined;
}

export class RecordingService {
  readonly media: MediaStore;

  constructor(
    private readonly platform: Platform,
    private readonly events: EventEmitter,
    private readonly calls: CallService,
    private readonly carriers: VoiceCarriers,
  ) {
    this.media = new MediaStore(platform.config.dataDir);
    platform.jobs.register<{ recordingId: string }>(PROCESS_JOB, (p, ctx) => this.process(p.recordingId, ctx.attempt), { maxAttempts: PROCESS_ATTEMPTS });
    // Recordings follow their call: `record: true` starts one on answer, and the end of the call stops them all.
    calls.onTransition(async (trx, call, from, clock) => {
      if (call.status === 'in_progress' && call.record === 1) await this.create(trx, call, 'record', 2, 0, clock);
      if (from === 'in_progress' && call.status === 'completed') await this.stopAll(trx, call, call.duration_seconds ?? 0, clock);
    });
  }

  private get db() {
    return this.platform.database.db;
  }

  private deps(clock: Clock, webhookUrl: string | null) {
    return { events: this.events, clock, present: presentRecording, webhookUrl };
  }

  private async create(trx: Trx, call: CallRow, source: 'record' | 'api', channels: 1 | 2, at: number, clock: Clock): Promise<RecordingRow> {
    const now = clock.now().toISOString();
    const row: RecordingRow = {
      id: newId('recording'),
      account_id: call.account_id,
      mode: call.mode,
      call_id: call.id,
      status: 'recording',
      source,
      channels,
      sample_rate: SAMPLE_RATE,
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
    await this.events.emit(trx, {
      accountId: row.account_id, mode: row.mode, type: 'call.recording.started', resourceType: 'recording', resourceId: row.id,
      object: presentRecording(row), webhookUrl: call.webhook_url, clock,
    });
    return row;
  }

  /** The call ended: every recording still capturing (or paused) stops at the call's end and is processed. */
  private async stopAll(trx: Trx, call: CallRow, at: number, clock: Clock): Promise<void> {
    const open = await trx.selectFrom('recordings').selectAll().where('call_id', '=', call.id)
      .where('status', 'in', ['recording', 'paused']).orderBy('id').execute();
    for (const row of open) await this.stop(trx, row, call, at, clock);
    // Stopped earlier but not processed yet (the job may be pending): it still gets processed by that job.
  }

  private async stop(trx: Trx, row: RecordingRow, call: CallRow, at: number, clock: Clock): Promise<RecordingRow> {
    const next = await transition(trx, this.deps(clock, call.webhook_url), row, 'stopped', { spans: closeSpan(row.spans, at) });
    await this.platform.jobs.enqueue(trx, PROCESS_JOB, { recordingId: row.id }, { clockId: row.mode === 'sandbox' ? row.account_id : null });
    return next;
  }

  /** POST /v1/calls/{id}/recordings */
  async startOnCall(caller: Caller, callId: string, channels: 1 | 2): Promise<Recording> {
    return inTransaction(this.db, async (trx) => {
      const call = await this.calls.lockOwned(trx, caller.account.id, caller.mode, callId);
      if (call.status !== 'in_progress') {
        throw new Problem('call_not_in_progress', `Recordings start on a call in progress; call ${callId} is ${call.status}.`);
      }
      const at = await this.carriers.named(call.carrier).talkSeconds(trx, call);
      return presentRecording(await this.create(trx, call, 'api', channels, at, caller.clock));
    });
  }

  /** The recording and its call, both locked (call first, the order every writer uses). */
  private async lockWithCall(trx: Trx, caller: Caller, id: string): Promise<{ row: RecordingRow; call: CallRow }> {
    const found = await trx.selectFrom('recordings').select('call_id')
      .where('id', '=', id).where('account_id', '=', caller.account.id).where('mode', '=', caller.mode).executeTakeFirst();
    if (!found) throw notFound('recording', id);
    const call = await this.calls.lockOwned(trx, caller.account.id, caller.mode, found.call_id);
    return { row: await this.lock(trx, id) as RecordingRow, call };
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
      if (row.status === 'recording') throw new Problem('invalid_state_transition', `Recording ${id} is already recording.`);
      if (call.status !== 'in_progress') {
        throw new Problem('call_not_in_progress', `Recording ${id} belongs to call ${call.id}, which is ${call.status}: only a live call can be recorded.`);
      }
      if (row.redacted === 1) throw new Problem('invalid_state_transition', `Recording ${id} was redacted and is final; start a new recording with POST /v1/calls/${call.id}/recordings.`);
      if (row.status === 'processing') throw new Problem('invalid_state_transition', `Recording ${id} is being processed; start it again once it is ready.`);
      const at = await this.carriers.named(call.carrier).talkSeconds(trx, call);
      const spans = [...(JSON.parse(row.spans) as RecordingSpan[]), { start: at, end: null }];
      return presentRecording(await transition(trx, this.deps(caller.clock, call.webhook_url), row, 'recording', { spans: JSON.stringify(spans) }));
    });
  }

  /** POST /v1/recordings/{id}/pause */
  async pause(caller: Caller, id: string): Promise<Recording> {
    return inTransaction(this.db, async (trx) => {
      const { row, call } = await this.lockWithCall(trx, caller, id);
      const at = row.status === 'recording' ? await this.carriers.named(call.carrier).talkSeconds(trx, call) : 0;
      return presentRecording(await transition(trx, this.deps(caller.clock, call.webhook_url), row, 'paused', { spans: closeSpan(row.spans, at) }));
    });
  }

  /** POST /v1/recordings/{id}/stop: stops capturing and processes what was captured. */
  async stopByApi(caller: Caller, id: string): Promise<Recording> {
    return inTransaction(this.db, async (trx) => {
      const { row, call } = await this.lockWithCall(trx, caller, id);
      if (row.status !== 'recording' && row.status !== 'paused') {
        throw new Problem('invalid_state_transition', `Recording ${id} is ${row.status}; only a recording that is recording or paused can be stopped.`);
      }
      const at = row.status === 'recording' ? await this.carriers.named(call.carrier).talkSeconds(trx, call) : 0;
      return presentRecording(await this.stop(trx, row, call, at, caller.clock));
    });
  }

  /** The processing job: stopped -> processing -> ready (or failed after the last attempt). */
  private async process(id: string, attempt: number): Promise<void> {
    const row = await inTransaction(this.db, async (trx) => {
      const current = await this.lock(trx, id);
      if (!current || (current.status !== 'stopped' && current.status !== 'processing')) return null;
      if (current.status === 'processing') return current;
      const clock = await this.platform.sandboxClocks.clockFor(current.account_id, current.mode, trx);
      return transition(trx, this.deps(clock, null), current, 'processing');
    });
    if (!row) return;
    const call = await this.db.selectFrom('calls').selectAll().where('id', '=', row.call_id).executeTakeFirstOrThrow();
    const spans = JSON.parse(row.spans) as RecordingSpan[];
    let rendered: { wav: Buffer; transcript: TranscriptSegment[]; durationMs: number; path: string };
    try {
      const carrier = this.carriers.named(call.carrier);
      const { audio, transcript } = await carrier.recordingMedia(call, spans, { channels: row.channels as 1 | 2, sampleRate: SAMPLE_RATE }, row.id);
      const wav = encodeWav(audio);
      const path = this.media.pathFor(row.account_id, row.id);
      await this.media.write(path, wav);
      rendered = { wav, transcript, durationMs: Math.round(((audio.samples[0]?.length ?? 0) / audio.sampleRate) * 1000), path };
    } catch (err) {
      if (attempt >= PROCESS_ATTEMPTS) await this.finish(row.id, 'failed', { error: `processing failed: ${(err as Error).message}` });
      throw err;
    }
    await this.finish(row.id, 'ready', {
      media_path: rendered.path, size_bytes: rendered.wav.length, duration_ms: rendered.durationMs, transcript: JSON.stringify(rendered.transcript), error: null,
    });
  }

  private async finish(id: string, to: 'ready' | 'failed', extra: TransitionExtra): Promise<void> {
    await inTransaction(this.db, async (trx) => {
      const current = await this.lock(trx, id);
      if (!current || current.status !== 'processing') return;
      const call = await trx.selectFrom('calls').select('webhook_url').where('id', '=', current.call_id).executeTakeFirstOrThrow();
      const clock = await this.platform.sandboxClocks.clockFor(current.account_id, current.mode, trx);
      await transition(trx, this.deps(clock, call.webhook_url), current, to, extra);
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
      if (row.status !== 'ready' || !row.media_path || !row.transcript) {
        throw new Problem('recording_not_ready', `Recording ${id} is ${row.status}; it can be redacted once it is ready (call.recording.ready).`);
      }
      const { segments, ranges } = redactSegments(JSON.parse(row.transcript) as TranscriptSegment[], types);
      if (ranges.length === 0 && row.redacted === 1) return presentRecording(row);
      if (ranges.length > 0) {
        const audio = decodeWav(await this.media.read(row.media_path));
        silenceRanges(audio.samples, audio.sampleRate, ranges, { allChannels: true });
        await this.media.write(row.media_path, encodeWav(audio));
      }
      const redactions = [...(JSON.parse(row.redactions) as RedactedAudioRange[]), ...ranges]
        .sort((a, b) => a.start - b.start || a.channel - b.channel)
        .map((r) => ({ type: r.type, channel: r.channel, start: round3(r.start), end: round3(r.end) }));
      const now = caller.clock.now().toISOString();
      const changes = { transcript: JSON.stringify(segments), redacted: 1, redactions: JSON.stringify(redactions), updated_at: now };
      await trx.updateTable('recordings').set(changes).where('id', '=', id).execute();
      const next = { ...row, ...changes };
      const call = await trx.selectFrom('calls').select('webhook_url').where('id', '=', row.call_id).executeTakeFirstOrThrow();
      await this.events.emit(trx, {
        accountId: row.account_id, mode: row.mode, type: 'call.recording.redacted', resourceType: 'recording', resourceId: id,
        object: presentRecording(next), webhookUrl: call.webhook_url, clock: caller.clock,
      });
      return presentRecording(next);
    });
  }

  async get(accountId: string, mode: Mode, id: string): Promise<RecordingRow> {
    const row = await this.db.selectFrom('recordings').selectAll()
      .where('id', '=', id).where('account_id', '=', accountId).where('mode', '=', mode).executeTakeFirst();
    if (!row) throw notFound('recording', id);
    return row;
  }

  async mediaOf(accountId: string, mode: Mode, id: string): Promise<Buffer> {
    const row = await this.get(accountId, mode, id);
    if (row.status !== 'ready' || !row.media_path) {
      throw new Problem('recording_not_ready', `Recording ${id} is ${row.status}; its audio is available once it is ready.`);
    }
    return this.media.read(row.media_path);
  }

  async list(accountId: string, mode: Mode, f: RecordingListFilter): Promise<RecordingRow[]> {
    let q = this.db.selectFrom('recordings').selectAll().where('account_id', '=', accountId).where('mode', '=', mode);
    if (f.callId) q = q.where('call_id', '=', f.callId);
    if (f.status) q = q.where('status', '=', f.status);
    if (f.createdGte) q = q.where('created_at', '>=', new Date(f.createdGte).toISOString());
    if (f.createdLte) q = q.where('created_at', '<=', new Date(f.createdLte).toISOString());
    return fetchPage(q, f);
  }
}

/** Ends the open span at `at` (never before its start). */
function closeSpan(spansJson: string, at: number): string {
  const spans = JSON.parse(spansJson) as RecordingSpan[];
  const open = spans.at(-1);
  if (open && open.end === null) open.end = round3(Math.max(open.start, at));
  return JSON.stringify(spans);
}
