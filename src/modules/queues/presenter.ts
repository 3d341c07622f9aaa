// What the API and the events show of queues and their members.
import type { QueueMemberRow, QueueResult, QueueRow } from './tables.ts';

export interface QueueStats {
  current_size: number;
  average_wait_seconds: number;
  oldest_wait_seconds: number;
}

export function presentQueue(row: QueueRow, stats: QueueStats) {
  return {
    id: row.id,
    object: 'queue' as const,
    mode: row.mode,
    name: row.name,
    max_size: row.max_size,
    max_wait_seconds: row.max_wait_seconds,
    wait_flow: row.wait_flow ? JSON.parse(row.wait_flow) : [],
    wait_url: row.wait_url,
    ...stats,
    routing: row.routing ? JSON.parse(row.routing) : null,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** `waited`: seconds it waited so far (or until it left); `position`: its place while in the queue. */
export function presentMember(row: QueueMemberRow, position: number | null, waited: number) {
  return {
    object: 'queue_member' as const,
    call_id: row.call_id,
    queue_id: row.queue_id,
    status: row.status,
    position,
    priority: row.priority,
    wait_seconds: waited,
    enqueued_at: row.enqueued_at,
    result: row.reason,
    bridged_call_id: row.peer_call_id,
    dequeued_to: row.dequeued_to,
  };
}

/** data.object of call.queue.joined and call.queue.left (the CallQueue schema). */
export function callQueueObject(callId: string, queue: { id: string | null; name: string }, fields: {
  result: QueueResult | null; position: number | null; priority: number; waitSeconds: number; detail?: string | null;
}) {
  return {
    object: 'call_queue' as const,
    call_id: callId,
    queue_id: queue.id,
    queue_name: queue.name,
    result: fields.result,
    position: fields.position,
    priority: fields.priority,
    wait_seconds: fields.waitSeconds,
    detail: fields.detail ?? null,
  };
}
