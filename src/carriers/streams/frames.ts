// The media stream protocol's JSON text frames (docs/media-streams.md documents every one).
// Close to Twilio Media Streams, so an integration ports in minutes: the same event names
// (connected, start, media, dtmf, mark, stop; app-bound media, mark, clear, stop), snake_case
// fields and numbers as JSON numbers where Twilio sends strings.
//
// Server-bound frames carry `sequence_number` (1 for `start`, then one more per frame, over
// every kind); `media` frames also carry their track's `chunk` (1, 2, ...) and `timestamp`, the
// milliseconds of the call's media since the stream started, 20 ms per frame.
import type { StreamFormat, StreamStopReason, StreamTrack } from '../../telephony/media-streams.ts';

export type MediaTrack = 'inbound' | 'outbound';

export const FRAME_MS = 20;

/** What the `start` frame says about the stream. */
export interface StreamDescription {
  streamId: string;
  callId: string;
  accountId: string;
  track: StreamTrack;
  format: StreamFormat;
  bidirectional: boolean;
  parameters: Record<string, string>;
}

const ENCODINGS: Record<StreamFormat, { encoding: string; sample_rate: number }> = {
  mulaw_8000: { encoding: 'audio/x-mulaw', sample_rate: 8000 },
  l16_8000: { encoding: 'audio/l16', sample_rate: 8000 },
  l16_16000: { encoding: 'audio/l16', sample_rate: 16000 },
};

/** Builds one stream's server-bound frames, numbering them as it goes. */
export class ServerFrames {
  private sequence = 0;
  private readonly chunks: Record<MediaTrack, number> = { inbound: 0, outbound: 0 };

  constructor(private readonly stream: StreamDescription) {}

  connected(): string {
    return JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' });
  }

  start(): string {
    const s = this.stream;
    return this.frame('start', {
      start: {
        stream_id: s.streamId, call_id: s.callId, account_id: s.accountId,
        tracks: s.track === 'both' ? ['inbound', 'outbound'] : [s.track],
        format: s.format, media_format: { ...ENCODINGS[s.format], channels: 1 },
        bidirectional: s.bidirectional, custom_parameters: s.parameters,
      },
    });
  }

  /** One 20 ms frame of `track` at `timestamp` ms; `payload` is base64 in the stream's format. */
  media(track: MediaTrack, timestamp: number, payload: string): string {
    this.chunks[track] += 1;
    return this.frame('media', { media: { track, chunk: this.chunks[track], timestamp, payload } });
  }

  /** A key the far end pressed; `duration` in ms. */
  dtmf(digit: string, duration: number): string {
    return this.frame('dtmf', { dtmf: { track: 'inbound', digit, duration } });
  }

  /** The app's mark: the audio it sent before it has been played (or, `cleared`, dropped by a clear). */
  mark(name: string, cleared: boolean): string {
    return this.frame('mark', { mark: { name, ...(cleared ? { cleared: true } : {}) } });
  }

  stop(reason: StreamStopReason): string {
    return this.frame('stop', { stop: { call_id: this.stream.callId, account_id: this.stream.accountId, reason } });
  }

  private frame(event: string, body: Record<string, unknown>): string {
    this.sequence += 1;
    return JSON.stringify({ event, sequence_number: this.sequence, stream_id: this.stream.streamId, ...body });
  }
}

/** What the app may send (bidirectional streams only). */
export type AppFrame =
  | { event: 'media'; payload: string }
  | { event: 'mark'; name: string }
  | { event: 'clear' }
  | { event: 'stop' };

/** Reads an app frame; null for anything else (ignored, as Twilio ignores unknown events). */
export function parseAppFrame(text: string): AppFrame | null {
  let message: any;
  try {
    message = JSON.parse(text);
  } catch {
    return null;
  }
  switch (message?.event) {
    case 'media':
      return typeof message.media?.payload === 'string' ? { event: 'media', payload: message.media.payload } : null;
    case 'mark':
      return typeof message.mark?.name === 'string' ? { event: 'mark', name: message.mark.name.slice(0, 256) } : null;
    case 'clear':
      return { event: 'clear' };
    case 'stop':
      return { event: 'stop' };
    default:
      return null;
  }
}
