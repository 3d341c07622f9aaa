// The recording state machine as data: each allowed move and the event it emits (every move
// emits one: test/platform/state-events.test.ts audits it). One function, `transition`,
// checks, stamps, UPDATEs and emits.
//
//   recording -> paused | stopped        paused -> recording (resumed) | stopped
//   stopped -> processing | recording    processing -> ready | failed
//   ready -> recording (restarted on a call still in progress; then processed again)
//   ready | failed -> deleted (DELETE /v1/recordings/{id}: media and transcript gone; final)
import type { Trx } from '../../store/transaction.ts';
import type { Clock } from '../../platform/clock.ts';
import type { EventEmitter } from '../../events/emit.ts';
import type { EventType } from '../../events/catalogue.ts';
import { Problem } from '../../platform/problems.ts';
import type { RecordingRow } from './tables.ts';

export const RECORDING_STATUSES = ['recording', 'paused', 'stopped', 'processing', 'ready', 'failed', 'deleted'] as const;
export type RecordingStatus = (typeof RECORDING_STATUSES)[number];

export const TRANSITIONS: Record<RecordingStatus, Partial<Record<RecordingStatus, EventType>>> = {
  recording: { paused: 'call.recording.paused', stopped: 'call.recording.stopped' },
  paused: { recording: 'call.recording.resumed', stopped: 'call.recording.stopped' },
  stopped: { processing: 'call.recording.processing', recording: 'call.recording.started' },
  processing: { ready: 'call.recording.ready', failed: 'call.recording.failed' },
  ready: { recording: 'call.recording.started', deleted: 'call.recording.deleted' },
  failed: { deleted: 'call.recording.deleted' },
  deleted: {},
};

export interface TransitionDeps {
  events: EventEmitter;
  clock: Clock;
  present(row: RecordingRow): unknown;
  webhookUrl: string | null;
}

export type TransitionExtra = Partial<Pick<RecordingRow, 'spans' | 'duration_ms' | 'size_bytes' | 'transcript' | 'media_path' | 'error'>>;

/** Statuses that hold a file still being written or processed: nothing can be deleted yet. */
export const CAPTURING_STATUSES: readonly RecordingStatus[] = ['recording', 'paused', 'stopped', 'processing'];

export function canMove(from: RecordingStatus, to: RecordingStatus): boolean {
  return Object.hasOwn(TRANSITIONS[from], to);
}

export async function transition(trx: Trx, deps: TransitionDeps, row: RecordingRow, to: RecordingStatus, extra: TransitionExtra = {}): Promise<RecordingRow> {
  if (!canMove(row.status, to)) {
    throw new Problem('invalid_state_transition', `Recording ${row.id} is ${row.status} and cannot become ${to}.`);
  }
  const now = deps.clock.now().toISOString();
  const timestamps = { ...JSON.parse(row.timestamps), [to]: now };
  const changes = { ...extra, status: to, timestamps: JSON.stringify(timestamps), updated_at: now };
  await trx.updateTable('recordings').set(changes).where('id', '=', row.id).execute();
  const next: RecordingRow = { ...row, ...changes };
  const type = TRANSITIONS[row.status][to];
  if (type) {
    await deps.events.emit(trx, {
      accountId: next.account_id, mode: next.mode, type, resourceType: 'recording', resourceId: next.id,
      object: deps.present(next), webhookUrl: deps.webhookUrl, clock: deps.clock,
    });
  }
  return next;
}
