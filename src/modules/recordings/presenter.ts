// A recording row as the API shows it (GET, lists, event payloads).
import type { Static } from 'typebox';
import type { RecordingRow } from './tables.ts';
import type { RecordingSchema } from './schema.ts';
import { failure } from '../../platform/failure.ts';

export type Recording = Static<typeof RecordingSchema>;

/** `publicUrl` is the server's base (platform.publicUrl.base): media_url is absolute. */
export function presentRecording(row: RecordingRow, publicUrl: string): Recording {
  const ready = row.status === 'ready';
  return {
    id: row.id,
    object: 'recording',
    mode: row.mode,
    call_id: row.call_id,
    conference_id: row.conference_id ?? null,
    status: row.status,
    source: row.source as Recording['source'],
    format: 'wav',
    channels: Number(row.channels),
    sample_rate: Number(row.sample_rate),
    duration_seconds: row.duration_ms === null ? null : Number(row.duration_ms) / 1000,
    size_bytes: row.size_bytes === null ? null : Number(row.size_bytes),
    media_url: ready && row.media_path ? `${publicUrl}/v1/recordings/${row.id}/media` : null,
    transcript: row.transcript === null ? null : { segments: JSON.parse(row.transcript) },
    redacted: row.redacted === 1,
    redactions: JSON.parse(row.redactions),
    timestamps: JSON.parse(row.timestamps),
    error: row.error,
    failure: row.status === 'failed' ? failure('processing_failed', row.error ?? 'The recording could not be processed.') : null,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
