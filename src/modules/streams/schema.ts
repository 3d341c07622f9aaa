// The Stream contract: what a stream asks for (the stream verb's body and POST
// /v1/calls/{id}/streams are the same object) and the resource the API shows.
import { Type } from 'typebox';
import { PageQuery, Timestamp } from '../../platform/schemas.ts';
import { STREAM_FAILURES, STREAM_FORMATS, STREAM_STOP_REASONS, STREAM_TRACKS } from '../../telephony/media-streams.ts';
import { STREAM_STATUSES } from './states.ts';

const literals = <const T extends string[]>(values: readonly [...T], description?: string) => Type.Enum(values, description ? { description } : {});

/** The stream's URL: ws:// or wss:// (live: wss:// to a public address; sandbox: loopback allowed). */
export const StreamUrl = Type.String({
  pattern: '^wss?://', maxLength: 2048, format: 'uri',
  description: 'The WebSocket server: wss:// to a public address on live calls; the sandbox also allows ws:// and loopback. The same URL policy (and SSRF rules) as webhook URLs.',
  examples: ['wss://example.org/media'],
});

export const StreamRequestFields = {
  url: StreamUrl,
  track: Type.Optional(literals(STREAM_TRACKS, 'What the server hears: inbound (the other party), outbound (what the call plays to it), or both. Default inbound.')),
  bidirectional: Type.Optional(Type.Boolean({ default: false, description: 'The app may send audio back (media, mark, clear, stop). A bidirectional stream of a flow holds the call until the server closes the socket or sends stop; one per call.' })),
  format: Type.Optional(literals(STREAM_FORMATS, 'Audio of media frames both ways: G.711 µ-law 8 kHz, or 16-bit little-endian PCM at 8 or 16 kHz. Default mulaw_8000.')),
  parameters: Type.Optional(Type.Record(Type.String({ maxLength: 64 }), Type.String({ maxLength: 500 }), { maxProperties: 20, description: 'Custom parameters, sent in the start frame.' })),
  status_url: Type.Optional(Type.String({ format: 'uri', maxLength: 2048, description: 'Also receives this stream\'s call.stream.* events (signed like every webhook).' })),
};

export const StartStreamBody = Type.Object(StreamRequestFields, { additionalProperties: false });

export const StreamListQuery = Type.Object({ ...PageQuery });

export const StreamSchema = Type.Object({
  id: Type.String({ examples: ['stream_01jd8x0v6kf5b9w3t2q1r0p9n8'] }),
  object: Type.Literal('stream'),
  mode: Type.Union([Type.Literal('sandbox'), Type.Literal('live')]),
  call_id: Type.String(),
  status: literals(STREAM_STATUSES, 'connecting, then started; stopped (see reason) or failed (see reason and error).'),
  source: Type.Union([Type.Literal('api'), Type.Literal('flow')], { description: 'api: POST /v1/calls/{id}/streams; flow: a flow\'s stream verb.' }),
  url: Type.String(),
  track: literals(STREAM_TRACKS),
  format: literals(STREAM_FORMATS),
  bidirectional: Type.Boolean(),
  parameters: Type.Record(Type.String(), Type.String()),
  status_url: Type.Union([Type.String(), Type.Null()]),
  reason: Type.Union([literals([...STREAM_STOP_REASONS, ...STREAM_FAILURES]), Type.Null()], {
    description: 'Stopped: completed (the app sent stop), remote_closed (the server closed the socket), call_ended, stopped (POST .../stop), '
      + 'node_lost (the Switchboard process holding the socket crashed, restarted or was stopped while the call went on). '
      + 'Failed: connect_refused, tls_error, handshake_status (the server answered the handshake with another status), timeout, url_not_allowed.',
  }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'Why it failed, in a sentence.' }),
  dropped_frames: Type.Integer({ description: 'Frames to the server dropped because its socket\'s send buffer was full (a slow server never delays the call).' }),
  created_at: Timestamp,
  started_at: Type.Union([Timestamp, Type.Null()]),
  ended_at: Type.Union([Timestamp, Type.Null()]),
  updated_at: Timestamp,
}, { $id: 'Stream' });
