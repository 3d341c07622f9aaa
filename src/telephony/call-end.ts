// How calls and transfers end, in words every carrier and the calls module share.

/** Why a call ended (a small, carrier-neutral set modelled on Q.850 causes). */
export const HANGUP_CAUSES = [
  'normal_clearing', 'user_busy', 'no_answer', 'call_rejected', 'unallocated_number', 'network_out_of_order', 'originator_cancel', 'time_limit_reached',
] as const;
export type HangupCause = (typeof HANGUP_CAUSES)[number];

/** Who ended the call: the caller side (your API hangup), the called party, the carrier, or Switchboard (time limit). */
export const HANGUP_SOURCES = ['caller', 'callee', 'carrier', 'system'] as const;
export type HangupSource = (typeof HANGUP_SOURCES)[number];

/** How a call ended on the network side. */
export interface CallEnd {
  status: 'completed' | 'busy' | 'no_answer' | 'failed';
  hangupCause: HangupCause;
  hangupSource: HangupSource;
  /** Talk time as the carrier measured it (media since answer), for answered calls. */
  talkSeconds?: number;
  /** The carrier's own code for the end (e.g. the SIP final response status, "486"); shown as failure.carrier_code. */
  carrierCode?: string;
}

/** CallEnd.carrierCode of a live call whose media node died: our own code, not a carrier's. */
export const NODE_LOST = 'node_lost';

export type TransferOutcome = 'completed' | 'busy' | 'no_answer' | 'failed';
