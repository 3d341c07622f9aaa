// The number state machine as data. A number is born `active` (provisioned, imported, a
// temporary number) or `porting` (a number on a port order); `number.ported` marks
// porting -> active, `number.released` any move to `released`.
import type { NumberRow } from '../../store/platform-tables.ts';
import type { EventType } from '../../events/catalogue.ts';
import { defineStateMachine } from '../../platform/state-machine.ts';

export type NumberStatus = NumberRow['status'];

export const TRANSITIONS: Record<NumberStatus, readonly NumberStatus[]> = {
  porting: ['active', 'released'],
  active: ['released'],
  released: [],
};

/**
 * The event a number's move into each state emits. A number is born `active` with
 * number.provisioned; one born `porting` is announced by its port order's
 * number.port.submitted (on the port, which lists the number) and emits nothing of its own.
 */
export const STATE_EVENTS = {
  porting: 'number.port.submitted',
  active: 'number.ported',
  released: 'number.released',
} as const satisfies Record<NumberStatus, EventType>;

/** The one way a number's status moves: check, stamp, conditional UPDATE (src/platform/state-machine.ts). */
export const NUMBER_MACHINE = defineStateMachine<NumberStatus, NumberRow>({
  resource: 'Number',
  table: 'numbers',
  transitions: TRANSITIONS,
  stamp: (_row, to, now, set) => (to === 'released' ? { ...set, released_at: now } : set),
});
