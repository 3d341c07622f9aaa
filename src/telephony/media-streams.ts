// Media streams (docs/media-streams.md): a call's audio forked to, and for a bidirectional
// stream taken from, the customer's own WebSocket server. These are the words the streams
// module and the carriers' media ports share: what a stream is asked to do, and how it ends.

/** Which side of the call the server hears: the far end (`inbound`), what the call plays to it (`outbound`), or both. */
export const STREAM_TRACKS = ['inbound', 'outbound', 'both'] as const;
export type StreamTrack = (typeof STREAM_TRACKS)[number];

/** The audio in `media` frames, both ways: G.711 µ-law at 8 kHz, or 16-bit little-endian PCM at 8 or 16 kHz. */
export const STREAM_FORMATS = ['mulaw_8000', 'l16_8000', 'l16_16000'] as const;
export type StreamFormat = (typeof STREAM_FORMATS)[number];

/**
 * Why a stream stopped: the app sent `stop`, the server closed the socket, the call ended, it
 * was stopped (API or flow), or the Switchboard node holding its socket stopped (a crash, a
 * restart) while the call went on. Media ports report the first four; `node_lost` is the
 * streams module's finding.
 */
export const STREAM_STOP_REASONS = ['completed', 'remote_closed', 'call_ended', 'stopped', 'node_lost'] as const;
export type StreamStopReason = (typeof STREAM_STOP_REASONS)[number];

/** Why a stream never started. */
export const STREAM_FAILURES = ['connect_refused', 'tls_error', 'handshake_status', 'timeout', 'url_not_allowed'] as const;
export type StreamFailureReason = (typeof STREAM_FAILURES)[number];

/** What a media port is asked to stream (built by the streams module). */
export interface StreamOrder {
  streamId: string;
  callId: string;
  accountId: string;
  url: string;
  /**
   * The address the URL's host resolved to when the URL policy checked it: the port connects
   * there (SNI and Host stay the URL's), so DNS cannot change between the check and the use.
   * Null for an IP literal.
   */
  address: string | null;
  track: StreamTrack;
  bidirectional: boolean;
  format: StreamFormat;
  parameters: Record<string, string>;
  /** The signed handshake headers (webhook-id, webhook-timestamp, webhook-signature). */
  headers: Record<string, string>;
}

export interface StreamEnd {
  reason: StreamStopReason;
  /** Server-bound frames dropped because the socket's send buffer was full. */
  droppedFrames: number;
}

export interface StreamFailure {
  reason: StreamFailureReason;
  /** A sentence: the refused address, the TLS error, the status the server answered. */
  detail: string;
  /** The HTTP status of a refused handshake. */
  status?: number | undefined;
}
