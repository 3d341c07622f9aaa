// What a carrier may know of a call: its identity, its parties, its timeouts and where its
// media lives. The calls module's row is a superset of this (it is passed as is); carriers
// never see the rest of it (webhooks, metadata, transfers, flow state), and never read or
// write the calls table themselves.
import type { Mode } from '../store/platform-tables.ts';

export const CALL_STATUSES = ['queued', 'ringing', 'in_progress', 'completed', 'busy', 'no_answer', 'failed', 'canceled'] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];

export interface CallRef {
  id: string;
  account_id: string;
  mode: Mode;
  status: CallStatus;
  /** outbound: placed with POST /v1/calls; inbound: reached a number of the account. */
  direction?: 'outbound' | 'inbound';
  from_number: string;
  to_number: string;
  /** Ring timeout, seconds. */
  timeout: number;
  /** Longest talk time, seconds. */
  time_limit: number;
  answered_at: string | null;
  ended_at: string | null;
  /** Talk time of an ended call, whole seconds. */
  duration_seconds: number | null;
  /** The carrier's own code for the end (a SIP status, or NODE_LOST). */
  carrier_code?: string | null;
  /** Which carrier carries the call, by name (`simulator` in the sandbox). */
  carrier: string;
  /** The media node whose memory holds the call's dialog and media; null: any node. */
  node?: string | null;
  /** The carrier's own private state (JSON), as the calls module keeps it with the call. */
  carrier_state: string;
}
