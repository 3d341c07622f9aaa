// A stream row as the API shows it (GET, lists, event payloads).
import type { Static } from 'typebox';
import type { StreamRow } from './tables.ts';
import type { StreamSchema } from './schema.ts';

export type Stream = Static<typeof StreamSchema>;

export function presentStream(row: StreamRow): Stream {
  return {
    id: row.id,
    object: 'stream',
    mode: row.mode,
    call_id: row.call_id,
    status: row.status,
    source: row.source as Stream['source'],
    url: row.url,
    track: row.track as Stream['track'],
    format: row.format as Stream['format'],
    bidirectional: Number(row.bidirectional) === 1,
    parameters: JSON.parse(row.parameters),
    status_url: row.status_url,
    reason: row.reason as Stream['reason'],
    error: row.error,
    dropped_frames: Number(row.dropped_frames),
    created_at: row.created_at,
    started_at: row.started_at,
    ended_at: row.ended_at,
    updated_at: row.updated_at,
  };
}
