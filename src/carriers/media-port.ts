// The media port: everything the call-flow interpreter (src/modules/calls/flows/) may ask of
// the audio of one answered call, and everything the audio reports back. It is media-neutral
// on purpose: the sandbox simulator implements it on its test clock, and the live RTP engine
// (src/carriers/rtp, driven by the SIP user agent) implements it on real packets, so a flow
// behaves the same in both and the interpreter never knows which one it drives.
//
// The contract, in five rules:
//
// 1. One operation at a time per call. The interpreter starts an operation with `run`
//    (speak, play, silence, collect, record, bridge) under an id it chooses; the port reports
//    its end exactly once through `MediaEvents.finished(callId, opId, result)`, whatever ends
//    it (it completed, `interrupt` was called, or the call hung up: reason `interrupted` or
//    `hangup`). The interpreter ignores a `finished` whose opId is not the one it awaits, so a
//    port may report late or twice after a restart without harm.
// 2. Commands are issued inside the interpreter's database transaction (`trx`) so the flow
//    state and the order to the media commit together. A port that acts outside the database
//    (RTP) sends its command from `trx.afterCommit`; the simulator schedules durable jobs in `trx`.
// 3. Events are delivered outside any transaction; the receiver opens its own. A port never
//    holds a database transaction while it waits for audio.
// 4. Recordings are streamed: the port writes PCM frames to a `RecordingSink` (opened through
//    the `RecordingSinks` it was given) as the call runs, in bounded chunks, and never keeps a
//    whole recording in memory. Closing the sink yields the file the recordings module stores.
// 5. Audio work never runs on the thread that talks to the database: RTP does it in its worker
//    thread; the simulator produces audio in small slices that yield to the event loop.
//
// Hang-up of the whole call is not here: it is `VoiceCarrier.hangUp`, and the network's
// hang-up arrives as `CallSignals.ended` (the running operation then finishes with `hangup`).
import type { Trx } from '../store/transaction.ts';
import type { CallRef } from '../telephony/call-ref.ts';
import type { TranscriptSegment } from '../telephony/transcript.ts';
import type { HeardInput, MediaOp, MediaResult, PlayOp, RecordingFormat, SpeakOp } from '../telephony/media-ops.ts';
import type { ConferenceMix } from '../telephony/conference.ts';
import type { MediaStreamPort } from './media-streams.ts';
import type { Mode } from '../store/platform-tables.ts';

/** What the port reports; implemented by the flow interpreter. */
export interface MediaEvents {
  finished(callId: string, opId: string, result: MediaResult): Promise<void>;
  heard(callId: string, input: HeardInput): Promise<void>;
}

/** Where a recording's audio goes while the call runs: a WAV file written in chunks. */
export interface RecordingSink {
  /** Frames already in the file (non-zero when reopened to resume). */
  readonly frameCount: number;
  /**
   * Appends frames (one Int16Array per channel, equal lengths; stereo is caller on 0,
   * callee on 1). Resolves once the chunk is handed to the file, so a writer that awaits
   * each chunk holds at most one in memory.
   */
  write(samples: Int16Array[]): Promise<void>;
  /** Timed words heard in this audio, in seconds from the recording's first frame. */
  words(segments: TranscriptSegment[]): void;
  /** Finishes the file and hands it to the recordings module, which makes the recording ready. */
  close(): Promise<void>;
  /** Releases the file unfinished; `RecordingSinks.open` with `fromFrame` continues it later. */
  suspend(): Promise<void>;
  /** Drops the partial file: the recording fails with `reason`. */
  abort(reason: string): Promise<void>;
}

export interface RecordingSinks {
  /**
   * Opens the sink of recording `recordingId`. `fromFrame` > 0 continues a suspended (or
   * crashed) file from that frame, dropping anything after it; 0 starts it afresh.
   */
  open(accountId: string, recordingId: string, format: RecordingFormat, fromFrame?: number): Promise<RecordingSink>;
}

/**
 * A prompt's audio file fetched to this node's disk under the URL policy of `mode`, cached by
 * URL (the flows' audio cache, implemented by the calls module). A node that did not fetch an
 * announcement itself (a conference mixed here, announced through another node) fetches it so.
 */
export interface PromptAudio {
  fetch(url: string, mode: Mode): Promise<{ ok: true; audio: { path: string; seconds: number } } | { ok: false; detail: string }>;
}

/**
 * Conferences on a port: calls join one with a `conference` operation; the conferences module
 * tells the port, in the transaction that changed it, who is seated and how (ConferenceMix),
 * and the port mixes accordingly from then on (telephony/conference.ts: `hears`). Two calls
 * connected by `connect` operations are such a mix too, of two seats under connectionMixId:
 * the monitors module hands it over with a supervisor's seat added (its call runs a
 * `conference` operation on that id), and without it when the supervisor leaves.
 */
export interface ConferenceMedia {
  /** The conference's status or seats changed (a join, a leave, mute, hold, coach, its end). */
  mixChanged(trx: Trx, mix: ConferenceMix): Promise<void>;
  /** Everyone seated and not on hold hears `prompt` (speech, or fetched audio) from now, and so does the conference recording. */
  announce(trx: Trx, mix: ConferenceMix, prompt: SpeakOp | PlayOp): Promise<void>;
  /** The conference's recording (one channel: what the room hears, no coach) from now, through a sink. */
  startCapture(trx: Trx, mix: ConferenceMix, recordingId: string, format: RecordingFormat): Promise<void>;
  /** Stops it; the port closes the sink once the last frame is written. */
  stopCapture(trx: Trx, mix: ConferenceMix, recordingId: string): Promise<void>;
}

/** What a carrier tells the conferences module (implemented there). */
export interface ConferenceEvents {
  /** Media node `nodeId` died (its lease ran out): the conferences it mixed are over, their audio gone with it. */
  homeLost(nodeId: string): Promise<void>;
}

/** The media side of one carrier: every answered call of that carrier is driven through it. */
export interface MediaPort {
  /**
   * False when the port cannot turn speech into words (a live server without a speech-to-text
   * endpoint): flows whose gathers listen for speech are refused. Absent means it can.
   */
  readonly hearsSpeech?: boolean;
  /** Media streams to the customer's WebSocket server (media-streams.ts); absent where the port has none. */
  readonly streams?: MediaStreamPort;
  /** Starts `op` on `call` (in progress); the end comes back as `MediaEvents.finished(call.id, opId, ...)`. */
  run(trx: Trx, call: CallRef, opId: string, op: MediaOp): Promise<void>;
  /** Cuts the running operation `opId` short; it finishes with reason `interrupted`. No-op if it already ended. */
  interrupt(trx: Trx, call: CallRef, opId: string): Promise<void>;
  /** Sends RFC 4733 digits (0-9, *, #, A-D; `w` waits half a second) to the far end. */
  sendDtmf(trx: Trx, call: CallRef, digits: string): Promise<void>;
  /**
   * Taps the whole call (both parties) into the recording `recordingId` from now on, through a
   * sink from `RecordingSinks`. Stopping (or the call ending) closes the tap; the port closes
   * the sink when the last frame is written, which is how the recordings module learns the
   * audio is complete. Pausing keeps the sink open and writes nothing until started again.
   */
  startCapture(trx: Trx, call: CallRef, recordingId: string, format: RecordingFormat): Promise<void>;
  pauseCapture(trx: Trx, call: CallRef, recordingId: string): Promise<void>;
  stopCapture(trx: Trx, call: CallRef, recordingId: string): Promise<void>;
  /** Seconds of media since the call was answered, on the port's own clock (frames sent, or the test clock). */
  elapsed(trx: Trx, call: CallRef): Promise<number>;
  /**
   * Why this port cannot run `op` yet (a sentence), or null when it can. The interpreter asks
   * before `run`, and a flow that needs what the port lacks fails with call.flow.failed saying
   * so instead of waiting on an operation that would never do what the flow meant. Optional:
   * a port without it runs everything.
   */
  cannotRun?(op: MediaOp): string | null;
  /** Absent: calls of this carrier cannot join conferences (its cannotRun says so). */
  readonly conferences?: ConferenceMedia;
}
