// The recording state machine as data: each allowed move and the event it emits (every move
// emits one: test/webhooks/state-events.test.ts audits it). One function, `transition`,
// moves the row through RECORDING_MACHINE (check, stamp, conditional UPDATE) and emits.
//
//   recording -> paused | stopped        paused -> recording (resumed) | stopped
//   stopped -> processing | recording    processing -> ready | failed
//   ready -> recording (restarted on a call still in progress; then processed again)
//   ready | failed -> deleted (DELETE /v1/recordings/{id}: media and transcript gone; final)
import type { Trx } from '../../store/transaction.ts';
import type { Clock } from '../../platform/clock.ts';
import type { EventEmitter } from '../../events/emit.ts';
import type { EventType } from '../../events/catalogue.ts';
import { defineStateMachine } from '../../platform/state-machine.ts';
import { RECORDING_STATUSES, type RecordingRow, type RecordingStatus } from './tables.ts';

export { RECORDING_STATUSES, type RecordingStatus };

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

/** The one way a recording's status moves: check, stamp, conditional UPDATE (src/platform/state-machine.ts). */
export const RECORDING_MACHINE = defineStateMachine<RecordingStatus, RecordingRow>({
  resource: 'Recording',
  table: 'recordings',
  transitions: TRANSITIONS,
  stamp: (row, to, now, extra) => ({ ...extra, timestamps: JSON.stringify({ ...JSON.parse(row.timestamps), [to]: now }) }),
});

export function canMove(from: RecordingStatus, to: RecordingStatus): boolean {
  return RECORDING_MACHINE.can(from, to);
}

export async function transition(trx: Trx, deps: TransitionDeps, row: RecordingRow, to: RecordingStatus, extra: TransitionExtra = {}): Promise<RecordingRow> {
  const next = await RECORDING_MACHINE.move(trx, row, to, { now: deps.clock.now().toISOString(), set: extra });
  const type = TRANSITIONS[row.status][to];
  if (type) {
    await deps.events.emit(trx, {
      accountId: next.account_id, mode: next.mode, type, resourceType: 'recording', resourceId: next.id,
      object: deps.present(next), webhookUrl: deps.webhookUrl, clock: deps.clock,
    });
  }
  return next;
}
