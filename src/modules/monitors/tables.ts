// Row types of the monitors module (migration 0037).
import type { Mode } from '../../store/platform-tables.ts';
import type { MonitorMode, MonitorStatus } from './kinds.ts';

export interface MonitorRow {
  id: string;
  account_id: string;
  mode: Mode;
  /** The call POST /v1/calls/{id}/monitor named (one of the two below). */
  call_id: string;
  /** The conversation: the queue's caller, and the call that took it (the agent, whom a whisper reaches). */
  caller_call_id: string;
  agent_call_id: string;
  supervisor_call_id: string;
  /** The worker the supervisor is, when it was named by worker_id. */
  worker_id: string | null;
  /** listen, whisper or barge. */
  monitor_mode: MonitorMode;
  status: MonitorStatus;
  /** Why it ended: api, supervisor_hangup, unanswered, call_ended, flow_updated. */
  end_reason: string | null;
  created_at: string;
  started_at: string | null;
  ended_at: string | null;
  updated_at: string;
}

export interface MonitorTables {
  monitors: MonitorRow;
}
