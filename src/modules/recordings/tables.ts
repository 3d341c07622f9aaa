// Row types of the recordings table. JSON documents are text (both engines).
import type { Mode } from '../../store/platform-tables.ts';

// The statuses live with the row (not in states.ts) so that the table registry, which every
// transaction's type reaches, does not reach the state machine and the event emitter.
export const RECORDING_STATUSES = ['recording', 'paused', 'stopped', 'processing', 'ready', 'failed', 'deleted'] as const;
export type RecordingStatus = (typeof RECORDING_STATUSES)[number];

/** A stretch of the call that was captured, in carrier seconds since the call was answered. */
export interface RecordingSpan {
  start: number;
  /** null while capturing. */
  end: number | null;
}

export interface RecordingRow {
  id: string;
  account_id: string;
  mode: Mode;
  call_id: string;
  /** A conference's recording: the conference (call_id is the participant whose join started it). */
  conference_id: string | null;
  status: RecordingStatus;
  /** `record` (the call's record flag), `api` (POST /v1/calls/{id}/recordings), `flow` (a record verb), `conference`. */
  source: string;
  channels: number;
  sample_rate: number;
  /** JSON array of RecordingSpan. */
  spans: string;
  /** JSON `{ "<status>": "<time>" }` of the latest entry into each status. */
  timestamps: string;
  duration_ms: number | null;
  size_bytes: number | null;
  /** JSON array of TranscriptSegment, once processed. */
  transcript: string | null;
  /** Where the WAV lives, relative to the media root; null until processed. */
  media_path: string | null;
  redacted: number;
  /** JSON array of { type, channel, start, end }: what was silenced (never the values). */
  redactions: string;
  error: string | null;
  created_at: string;
  updated_at: string;
}

export interface RecordingTables {
  recordings: RecordingRow;
}
