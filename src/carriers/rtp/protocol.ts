// The messages between the media worker and the thread that owns calls. Commands carry a
// request number and get exactly one reply; events flow from the worker unasked.
import type { G711Codec } from './g711.ts';
import type { PortRange } from './port-range.ts';
import type { TickerStats } from './ticker.ts';
import type { WavStreamResult } from '../../media/wav-stream.ts';
import type { StreamEnd, StreamFailure, StreamOrder, StreamStopReason } from '../../telephony/media-streams.ts';

export interface RemoteMedia {
  address: string;
  port: number;
  codec: G711Codec;
  payloadType: number;
  /** The negotiated telephone-event payload type, or null when the peer has none. */
  dtmfPayloadType: number | null;
  /** False while the far end takes none of our media (it holds the call): nothing is sent. Default true. */
  sending?: boolean;
}

export interface SessionStats {
  packetsReceived: number;
  packetsSent: number;
  packetsLost: number;
  latePackets: number;
  concealedSamples: number;
  digits: number;
  latchedTo: string | null;
}

export type MediaCommand =
  | { op: 'open'; id: string; host: string; range: PortRange }
  | { op: 'remote'; id: string; remote: RemoteMedia }
  | { op: 'play'; id: string; playId: string; pcm: Int16Array }
  | { op: 'stop_playback'; id: string }
  | { op: 'digits'; id: string; digits: string }
  | { op: 'record'; id: string; path: string }
  | { op: 'stop_recording'; id: string }
  | { op: 'bridge'; id: string; peer: string | null }
  | { op: 'ringback'; id: string; on: boolean }
  /**
   * A conference leg's mix (conference-mix.ts): it writes its frames to `slot` of the bus in
   * `buffer` and hears the sum of the `hears` slots, or the hold tone (`hears` null); null: it
   * left. `bus` names the bus, so a leg that stays on it keeps its place in each slot.
   */
  | { op: 'mix'; id: string; mix: { bus: string; buffer: SharedArrayBuffer; slot: number; hears: number[] | null } | null }
  /** A conference recording (room-tap.ts) named `id`: started on the bus in `buffer`, or told the slots the room hears now. */
  | { op: 'tap'; id: string; buffer: SharedArrayBuffer; hears: number[]; path: string }
  | { op: 'stop_tap'; id: string }
  /** Audio played over the room of recording `id` (an announcement, a beep): the recording hears it too. */
  | { op: 'tap_overlay'; id: string; pcm: Int16Array }
  | { op: 'close'; id: string }
  /** A media stream on the leg (stream-leg.ts): the worker connects the customer's WebSocket and runs it. */
  | { op: 'stream'; id: string; order: WorkerStreamOrder }
  /** Sends `stop` (with `reason`) and closes; the stream reports `ended` with that reason. No-op for a stream already over. */
  | { op: 'stop_stream'; id: string; streamId: string; reason: StreamStopReason }
  /** The server is closing: every stream of every leg stops with `reason`; the reply comes once their sockets are closed. */
  | { op: 'stop_streams'; reason: StreamStopReason }
  /** Engine-wide figures; `reset` starts the loop-delay histogram and the ticker's counts afresh after reading. */
  | { op: 'stats'; reset?: boolean };

/** A media stream as the worker runs it: the order, and how long its WebSocket handshake may take. */
export interface WorkerStreamOrder extends StreamOrder {
  handshakeTimeoutMs: number;
  /** The socket's send buffer bound in bytes (streams/socket.ts SEND_BUFFER_BYTES by default). */
  sendBufferBytes?: number;
}

/** A stream's lifecycle, the only thing about it that crosses to the main thread (no audio). */
export type StreamReport =
  | { kind: 'started' }
  | { kind: 'ended'; end: StreamEnd }
  | { kind: 'failed'; failure: StreamFailure };

export type MediaReply =
  | { port: number }
  | { recording: WavStreamResult | null }
  | { stats: SessionStats }
  | { engine: EngineStats }
  | Record<string, never>;

export interface EngineStats {
  /** Media worker threads these figures cover. */
  workers: number;
  sessions: number;
  ticker: TickerStats;
  /** Event-loop delay of the media thread, 99th percentile, milliseconds. */
  loopDelayP99Ms: number;
  /** CPU the media thread itself has used since it started, milliseconds (Linux; null elsewhere). */
  threadCpuMs: number | null;
  /** RTP packets received and sent by every leg since the thread started (CPU per packet is threadCpuMs over these). */
  packetsReceived: number;
  packetsSent: number;
}

export type MediaEvent =
  | { type: 'digit'; id: string; digit: string }
  | { type: 'latched'; id: string; address: string; port: number }
  | { type: 'played'; id: string; playId: string; interrupted: boolean }
  /**
   * The far end started or stopped talking (voice-activity.ts). When it stopped on a recorded
   * leg, `recorded` is how many frames of the leg's file hold the audio up to then: they are on
   * their way to the disk already, so a listener can read the utterance without waiting for the
   * recorder's next half-second chunk.
   */
  | { type: 'voice'; id: string; talking: boolean; recorded?: number }
  /** How a media stream of the leg went: started, then ended, or failed; each once. */
  | { type: 'stream'; id: string; streamId: string; report: StreamReport };

export type WorkerMessage =
  | { kind: 'reply'; request: number; ok: true; value: MediaReply }
  | { kind: 'reply'; request: number; ok: false; error: string }
  | { kind: 'event'; event: MediaEvent };
