// Row types of the workers module (migrations 0031 and 0038). JSON documents are text (both engines).
import type { Mode } from '../../store/platform-tables.ts';

/** The column's values; states.ts holds the moves between them. */
export const WORKER_STATUSES = ['available', 'busy', 'wrap_up', 'offline'] as const;
export type WorkerStatus = (typeof WORKER_STATUSES)[number];

/** Where a worker's phone is: a number, a SIP URI, or a softphone registered to Switchboard. */
export type WorkerReach = string | { sip_user: string };

export interface WorkerRow {
  id: string;
  account_id: string;
  mode: Mode;
  name: string;
  /** JSON array of skill names, sorted and without duplicates. */
  skills: string;
  status: WorkerStatus;
  /** JSON of WorkerReach. */
  reach: string;
  /** The reach's sip_user (unique across Switchboard: a REGISTER names only the user). */
  sip_user: string | null;
  /** MD5(user:realm:password) of the softphone's password; the password itself is never kept. */
  sip_ha1: string | null;
  /** When the current SIP credentials were issued (null: none yet). */
  sip_credentials_at: string | null;
  ring_timeout_seconds: number;
  wrap_up_seconds: number;
  /** When the worker last became available (null: never yet); routing offers the longest idle first. */
  last_idle_at: string | null;
  /** The call it is on while busy. */
  current_call_id: string | null;
  /** The call ringing it with an offer (at most one at a time), and the queue of the offered caller. */
  offer_call_id: string | null;
  offer_queue_id: string | null;
  offer_caller_call_id: string | null;
  /** When it was last offered a caller (round_robin offers the least recently offered first). */
  last_offer_at: string | null;
  status_changed_at: string;
  created_at: string;
  updated_at: string;
}

/** A Contact a worker's softphone registered (migration 0036); the registrar's store. */
export interface SipRegistrationRow {
  sip_user: string;
  contact: string;
  received_address: string;
  received_port: number;
  transport: 'UDP' | 'TCP' | 'TLS';
  call_id: string;
  /** bigint: PostgreSQL hands it back as a string. */
  cseq: number | string;
  user_agent: string | null;
  expires_at: string;
  created_at: string;
  updated_at: string;
}

/** One status a worker entered, or one offer it missed (status-history.ts writes them). */
export interface WorkerStatusHistoryRow {
  worker_id: string;
  /** The worker's rows in the order they happened, from 1. */
  seq: number;
  account_id: string;
  mode: Mode;
  change: 'status' | 'missed';
  /** The status from `at` on (a miss leaves it as it was). */
  status: WorkerStatus;
  /** busy: the call it is on; missed: the call that rang it. */
  call_id: string | null;
  /** busy: the waiting caller that call was offered. */
  caller_call_id: string | null;
  at: string;
}

export interface WorkerTables {
  workers: WorkerRow;
  sip_registrations: SipRegistrationRow;
  worker_status_history: WorkerStatusHistoryRow;
}
