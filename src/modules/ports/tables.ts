import type { Mode } from '../../store/platform-tables.ts';

// The column's values; states.ts holds the moves between them.
export const PORT_STATUSES = ['submitted', 'foc_scheduled', 'exception', 'completed', 'canceled', 'rejected'] as const;
export type PortStatus = (typeof PORT_STATUSES)[number];

export interface PortRow {
  id: string;
  account_id: string;
  mode: Mode;
  status: PortStatus;
  /** JSON array of E.164 numbers to port, in request order. */
  phone_numbers: string;
  losing_carrier: string;
  account_number: string;
  /** Kept to (re)submit the order to the losing carrier; never returned by the API. */
  pin: string;
  authorized_name: string;
  service_address: string; // JSON object
  webhook_url: string | null;
  /** YYYY-MM-DDTHH:MM:SS.sssZ of the firm order commitment, once the losing carrier confirmed it. */
  foc_date: string | null;
  exception_code: string | null;
  exception_detail: string | null;
  rejection_reason: string | null;
  /** The latest (re)submission: the FOC date counts business days from here. */
  submitted_at: string;
  foc_scheduled_at: string | null;
  completed_at: string | null;
  canceled_at: string | null;
  rejected_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface PortsTables {
  ports: PortRow;
}
