// Row types of the queues module (migration 0029). JSON documents are text (both engines).
import type { Mode } from '../../store/platform-tables.ts';

export interface QueueRow {
  id: string;
  account_id: string;
  mode: Mode;
  /** Unique per account and mode: the `enqueue` and `dequeue` verbs may name the queue by it. */
  name: string;
  max_size: number;
  /** A caller waiting this long leaves with `timeout` (null: no limit). */
  max_wait_seconds: number | null;
  /** JSON array of wait verbs (say, pause, leave), looped while a caller waits; null without one. */
  wait_flow: string | null;
  /** Answers the wait verbs instead, asked at the start of each pass. */
  wait_url: string | null;
  /** JSON of QueueRouting (routing.ts): callers are offered to workers; null: they wait for a dequeue. */
  routing: string | null;
  created_at: string;
  updated_at: string;
}

/** The column's values; states.ts holds the moves between them. */
export const MEMBER_STATUSES = ['waiting', 'reserved', 'bridged', 'left'] as const;
export type MemberStatus = (typeof MEMBER_STATUSES)[number];

/** Why a caller's wait ended: what the enqueue verb's action_url is told, and call.queue.left's reason. */
export const QUEUE_RESULTS = ['bridged', 'timeout', 'full', 'hangup', 'leave', 'error'] as const;
export type QueueResult = (typeof QUEUE_RESULTS)[number];

/** One stay of one call in one queue. */
export interface QueueMemberRow {
  id: string;
  queue_id: string;
  account_id: string;
  mode: Mode;
  call_id: string;
  status: MemberStatus;
  /** 0 to 999; lower is taken first, then the longest waiting. */
  priority: number;
  enqueued_at: string;
  /** The enqueue verb's own limit, else the queue's, when it joined (null: none). */
  max_wait_seconds: number | null;
  /** The flow op id the caller's enqueue verb waits under: a flow that moved on no longer owns this stay. */
  flow_op: string;
  /** JSON array of the wait verbs this caller loops (from the verb, else the queue); `[]` with a wait_url. */
  wait_flow: string;
  /** Index of the wait verb running (or next) in `wait_flow`. */
  wait_step: number;
  /** Answers the wait flow at the start of each pass instead (its last answer is in wait_flow). */
  wait_url: string | null;
  /** The media operation of the wait (or of its bridge) running on the caller's call. */
  wait_op: string | null;
  /** The call in progress it is bridged (or reserved) to. */
  peer_call_id: string | null;
  /** The flow op id the taking call's dequeue verb waits under while the two are bridged. */
  peer_flow_op: string | null;
  /** The number a dequeue dialled for it. */
  dequeued_to: string | null;
  reason: QueueResult | null;
  /** Seconds it waited, once it left the queue (bridged or not). */
  wait_seconds: number | null;
  left_at: string | null;
  updated_at: string;
}

export interface QueueTables {
  queues: QueueRow;
  queue_members: QueueMemberRow;
}
