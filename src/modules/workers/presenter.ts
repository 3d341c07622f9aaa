// What the API and the events show of a worker: never its SIP digest, only whether it has one.
import type { WorkerReach, WorkerRow } from './tables.ts';

export function presentWorker(row: WorkerRow) {
  return {
    id: row.id,
    object: 'worker' as const,
    mode: row.mode,
    name: row.name,
    skills: JSON.parse(row.skills) as string[],
    status: row.status,
    reach: JSON.parse(row.reach) as WorkerReach,
    ring_timeout_seconds: row.ring_timeout_seconds,
    wrap_up_seconds: row.wrap_up_seconds,
    last_idle_at: row.last_idle_at,
    current_call_id: row.current_call_id,
    offer: row.offer_call_id ? { call_id: row.offer_call_id, caller_call_id: row.offer_caller_call_id, queue_id: row.offer_queue_id } : null,
    status_changed_at: row.status_changed_at,
    sip_credentials_created_at: row.sip_credentials_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
