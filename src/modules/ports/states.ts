// The port-in order state machine as data, modelled on Telnyx and Twilio port-ins:
//
//   submitted --(losing carrier confirms)--> foc_scheduled --(FOC date)--> completed
//   submitted --(problem with the order)---> exception --(PATCH fixes it)--> submitted
//   submitted --(losing carrier refuses)---> rejected
//   submitted | exception | foc_scheduled --(POST cancel)--> canceled
//
// Cancel from foc_scheduled is refused within 48 h of the FOC date (409
// port_cancel_too_late): by then the carriers have committed to the cut-over.
import type { EventType } from '../../events/catalogue.ts';
import { defineStateMachine } from '../../platform/state-machine.ts';
import { PORT_STATUSES, type PortRow, type PortStatus } from './tables.ts';

export { PORT_STATUSES, type PortStatus };

export const TRANSITIONS: Record<PortStatus, readonly PortStatus[]> = {
  submitted: ['foc_scheduled', 'exception', 'rejected', 'canceled'],
  exception: ['submitted', 'canceled'],
  foc_scheduled: ['completed', 'canceled'],
  completed: [],
  canceled: [],
  rejected: [],
};

/** The event each state emits when entered: `number.port.<status>`. */
export const STATE_EVENTS = {
  submitted: 'number.port.submitted',
  foc_scheduled: 'number.port.foc_scheduled',
  exception: 'number.port.exception',
  completed: 'number.port.completed',
  canceled: 'number.port.canceled',
  rejected: 'number.port.rejected',
} as const satisfies Record<PortStatus, EventType>;

export const STAMPS: Partial<Record<PortStatus, 'submitted_at' | 'foc_scheduled_at' | 'completed_at' | 'canceled_at' | 'rejected_at'>> = {
  submitted: 'submitted_at',
  foc_scheduled: 'foc_scheduled_at',
  completed: 'completed_at',
  canceled: 'canceled_at',
  rejected: 'rejected_at',
};

/** The one way an order's status moves: check, stamp, conditional UPDATE (src/platform/state-machine.ts). */
export const PORT_MACHINE = defineStateMachine<PortStatus, PortRow>({
  resource: 'Port',
  table: 'ports',
  transitions: TRANSITIONS,
  stamp(_row, to, now, fields) {
    const set: Partial<PortRow> = { ...fields };
    const stamp = STAMPS[to];
    if (stamp) set[stamp] = now;
    return set;
  },
});

/** How close to the FOC date a cancel is still accepted. */
export const CANCEL_CUTOFF_HOURS = 48;
