// A monitor row as the API shows it (responses and event payloads).
import type { Static } from 'typebox';
import type { MonitorSchema } from './schema.ts';
import type { MonitorRow } from './tables.ts';

export type Monitor = Static<typeof MonitorSchema>;

export function presentMonitor(row: MonitorRow): Monitor {
  return {
    id: row.id,
    object: 'call_monitor',
    call_id: row.call_id,
    caller_call_id: row.caller_call_id,
    agent_call_id: row.agent_call_id,
    supervisor_call_id: row.supervisor_call_id,
    worker_id: row.worker_id,
    mode: row.monitor_mode,
    status: row.status,
    end_reason: row.end_reason as Monitor['end_reason'],
    created_at: row.created_at,
    started_at: row.started_at,
    ended_at: row.ended_at,
    updated_at: row.updated_at,
  };
}
