// Tables of the live messaging carriers (migration 0012); see that migration for why each exists.
export interface CarrierPartRow {
  message_id: string;
  part: number;
  parts: number;
  link: string;
  carrier_message_id: string;
  /** submitted, then the part's outcome: delivered, undelivered or failed. */
  status: 'submitted' | 'delivered' | 'undelivered' | 'failed' | 'read';
  /** The carrier's own final state name (DELIVRD, UNDELIV, ...). */
  state: string | null;
  error: string | null;
  created_at: string;
  updated_at: string;
}

export interface CarrierEarlyReceiptRow {
  link: string;
  carrier_message_id: string;
  state: string;
  error: string | null;
  received_at: string;
}

export interface CarrierInboundPartRow {
  link: string;
  /** from, to and the concatenation reference and total: one inbound message. */
  group_key: string;
  sequence: number;
  total: number;
  data_coding: number;
  octets: string; // hex
  received_at: string;
}

/** Inbound messages a link already recorded, by the carrier's id: a redelivered webhook is not a second message (migration 0016). */
export interface CarrierInboundSeenRow {
  link: string;
  carrier_message_id: string;
  received_at: string;
}

export interface CarrierTables {
  carrier_inbound_seen: CarrierInboundSeenRow;
  carrier_parts: CarrierPartRow;
  carrier_early_receipts: CarrierEarlyReceiptRow;
  carrier_inbound_parts: CarrierInboundPartRow;
}
