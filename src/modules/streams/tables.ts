// Row type of the call_streams table (media streams, docs/media-streams.md).
import type { Mode } from '../../store/platform-tables.ts';

/** connecting, then started; stopped or failed (states.ts moves them). */
export const STREAM_STATUSES = ['connecting', 'started', 'stopped', 'failed'] as const;
export type StreamStatus = (typeof STREAM_STATUSES)[number];

export interface StreamRow {
  id: string;
  account_id: string;
  mode: Mode;
  call_id: string;
  status: StreamStatus;
  /** `api` (POST /v1/calls/{id}/streams) or `flow` (the stream verb). */
  source: string;
  url: string;
  track: string;
  format: string;
  bidirectional: number;
  /** JSON object of the custom parameters the `start` frame carries. */
  parameters: string;
  status_url: string | null;
  /** The flow operation a bidirectional stream of the stream verb holds (the flow goes on when it ends). */
  flow_op: string | null;
  /** Why it stopped (a stop reason) or failed (a failure reason). */
  reason: string | null;
  error: string | null;
  dropped_frames: number;
  /**
   * The media node whose process holds the stream's socket: stops asked of other nodes are sent
   * there, and its open streams end when it dies. Null on a single-node deployment.
   */
  node: string | null;
  created_at: string;
  started_at: string | null;
  ended_at: string | null;
  updated_at: string;
}

export interface StreamTables {
  call_streams: StreamRow;
}
