// Row types of the calls table. JSON documents are text (both engines).
import type { Mode } from '../../store/platform-tables.ts';
import type { CallStatus } from './states.ts';

export interface CallRow {
  id: string;
  account_id: string;
  mode: Mode;
  status: CallStatus;
  /** outbound: placed with POST /v1/calls; inbound: reached a number of the account (migration 0005, default outbound). */
  direction?: 'outbound' | 'inbound';
  from_number: string;
  to_number: string;
  /** 0/1: the `record` request field. */
  record: number;
  /** The call's own webhook URL (request, else the number's): it receives the call's events besides subscriptions. */
  webhook_url: string | null;
  /** Shown as webhook_url when the call has none of its own: the subscription that gets its events (migration 0011). */
  subscription_webhook_url?: string | null;
  /** Ring timeout, seconds. */
  timeout: number;
  /** Longest talk time, seconds. */
  time_limit: number;
  metadata: string; // JSON object of strings
  /** JSON: `{ "<status>": "<time>" }`, the time the call entered each status. */
  timestamps: string;
  answered_at: string | null;
  ended_at: string | null;
  duration_seconds: number | null;
  hangup_cause: string | null;
  hangup_source: string | null;
  /** The carrier's own code for the end (a SIP status); migration 0011 (undefined on rows read before it). */
  carrier_code?: string | null;
  /** JSON array of CallTransfer. */
  transfers: string;
  /** Which carrier carries the call (`simulator` in the sandbox). */
  carrier: string;
  /** JSON, private to the carrier (the simulator keeps its call legs here). */
  carrier_state: string;
  /**
   * The media node whose memory holds the call's SIP dialog and media (live calls on PostgreSQL,
   * migration 0021): jobs and API actions on the call are carried out there. Null: any node.
   */
  node?: string | null;
  /** JSON FlowState (flows/state.ts) of the flow the call runs; null without one (migration 0014). */
  flow_state?: string | null;
  /** JSON array of FlowLogEntry: every verb the call ran, with its timing and result. */
  flow_log?: string;
  created_at: string;
  updated_at: string;
}

export interface CallTables {
  calls: CallRow;
}
