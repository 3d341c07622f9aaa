// Row types of the recordings table. JSON documents are text (both engines).
import type { Mode } from '../../store/platform-tables.ts';
import type { RecordingStatus } from './states.ts';

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
  status: RecordingStatus;
  /** `record` (the call's record flag) or `api` (POST /v1/calls/{id}/recordings). */
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
