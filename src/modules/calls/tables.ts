// Row types of the calls table. JSON documents are text (both engines).
import type { CallRef } from '../../telephony/call-ref.ts';

/**
 * A calls row: the CallRef every carrier sees (identity, parties, timeouts, answer and end,
 * carrier, node, carrier state), and what only the calls module reads. Columns added by a
 * later migration are optional: rows read before it lack them (direction: 0005, carrier_code:
 * 0011, node: 0021, post_dial_delay_ms: 0026).
 */
export interface CallRow extends CallRef {
  /** 0/1: the `record` request field. */
  record: number;
  /** The call's own webhook URL (request, else the number's): it receives the call's events besides subscriptions. */
  webhook_url: string | null;
  /** Shown as webhook_url when the call has none of its own: the subscription that gets its events (migration 0011). */
  subscription_webhook_url?: string | null;
  metadata: string; // JSON object of strings
  /** JSON: `{ "<status>": "<time>" }`, the time the call entered each status. */
  timestamps: string;
  hangup_cause: string | null;
  hangup_source: string | null;
  /** JSON array of CallTransfer. */
  transfers: string;
  /** JSON FlowState (flows/state.ts) of the flow the call runs; null without one (migration 0014). */
  flow_state?: string | null;
  /** JSON array of FlowLogEntry: every verb the call ran, with its timing and result. */
  flow_log?: string;
  /** Live calls: ms from sending the INVITE to the first 180/183 (migration 0026); null otherwise. */
  post_dial_delay_ms?: number | null;
  created_at: string;
  updated_at: string;
}

export interface CallTables {
  calls: CallRow;
}
