// The monitor's statuses and end reasons, as data (no imports: the row types and the schema
// both read them, and the store's table types must not reach the event machinery).
export { MONITOR_MODES, type MonitorMode } from '../../telephony/conference.ts';

export const MONITOR_STATUSES = ['dialing', 'active', 'ended'] as const;
export type MonitorStatus = (typeof MONITOR_STATUSES)[number];

export const END_REASONS = ['api', 'supervisor_hangup', 'unanswered', 'call_ended', 'flow_updated'] as const;
export type MonitorEndReason = (typeof END_REASONS)[number];
