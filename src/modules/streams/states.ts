// The media stream state machine as data, and the one function that moves a stream and
// emits its event:
//
//   connecting -> started (call.stream.started) | failed (call.stream.failed) | stopped
//   started -> stopped (call.stream.stopped, with its reason and dropped frame count)
import type { Trx } from '../../store/transaction.ts';
import type { Clock } from '../../platform/clock.ts';
import type { EventEmitter } from '../../events/emit.ts';
import type { EventType } from '../../events/catalogue.ts';
import { defineStateMachine } from '../../platform/state-machine.ts';
import type { StreamRow, StreamStatus } from './tables.ts';

export { STREAM_STATUSES, type StreamStatus } from './tables.ts';

export const TRANSITIONS: Record<StreamStatus, Partial<Record<StreamStatus, EventType>>> = {
  connecting: { started: 'call.stream.started', failed: 'call.stream.failed', stopped: 'call.stream.stopped' },
  started: { stopped: 'call.stream.stopped' },
  stopped: {},
  failed: {},
};

/** Streams still running (or about to): a call's one bidirectional stream, what a hang-up stops. */
export const OPEN_STATUSES: readonly StreamStatus[] = ['connecting', 'started'];

export const STREAM_MACHINE = defineStateMachine<StreamStatus, StreamRow>({
  resource: 'Stream',
  table: 'call_streams',
  transitions: TRANSITIONS,
  stamp: (_row, to, now, set) => ({ ...set, ...(to === 'started' ? { started_at: now } : { ended_at: now }) }),
});

export interface TransitionDeps {
  events: EventEmitter;
  clock: Clock;
  present(row: StreamRow): unknown;
  webhookUrl: string | null;
}

export async function transition(trx: Trx, deps: TransitionDeps, row: StreamRow, to: StreamStatus, set: Partial<StreamRow> = {}): Promise<StreamRow> {
  const next = await STREAM_MACHINE.move(trx, row, to, { now: deps.clock.now().toISOString(), set });
  const type = TRANSITIONS[row.status][to];
  if (type) {
    await deps.events.emit(trx, {
      accountId: next.account_id, mode: next.mode, type, resourceType: 'stream', resourceId: next.id,
      object: deps.present(next), webhookUrl: deps.webhookUrl, clock: deps.clock,
    });
  }
  return next;
}
