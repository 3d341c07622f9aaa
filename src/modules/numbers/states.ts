// The number state machine as data. A number is born `active` (provisioned, imported, a
// temporary number) or `porting` (a number on a port order); `number.ported` marks
// porting -> active, `number.released` any move to `released`.
import type { NumberRow } from '../../store/platform-tables.ts';

export type NumberStatus = NumberRow['status'];

export const TRANSITIONS: Record<NumberStatus, readonly NumberStatus[]> = {
  porting: ['active', 'released'],
  active: ['released'],
  released: [],
};

export const NUMBER_EVENTS = {
  active: 'number.ported',
  released: 'number.released',
} as const;
