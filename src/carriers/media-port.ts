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
import type { CallRow } from '../modules/calls/tables.ts';
import type { TranscriptSegment } from '../modules/recordings/transcript.ts';
import type { WavChannelCount, WavSampleRate } from '../media/wav.ts';

/** Speak text with text-to-speech (`loop` times; 0 is treated as 1 by ports). */
export interface SpeakOp {
  kind: 'speak';
  text: string;
  /** A voice name the port's speech engine knows; ports fall back to their default. */
  voice?: string | undefined;
  /** BCP 47, e.g. `en-US`. */
  language?: string | undefined;
  loop: number;
}

/** Play a WAV already fetched and checked by the interpreter (URL policy, size), `loop` times. */
export interface PlayOp {
  kind: 'play';
  /** Where the audio came from (logs, the simulator's transcript). */
  url: string;
  /** Absolute path of the cached file under the data dir. */
  path: string;
  /** Its length (one pass), read when it was fetched: the simulator plays for this long. */
  seconds: number;
  loop: number;
}

/** Nothing is sent for `seconds` (the flow's `pause`). */
export interface SilenceOp {
  kind: 'silence';
  seconds: number;
}

export type PromptOp = SpeakOp | PlayOp | SilenceOp;

/**
 * Play `prompts` in order while listening; input (a digit, or speech when `speech`) stops the
 * prompts at once when `bargeIn` (barge-in). Timers start when the prompts end (or are cut).
 */
export interface CollectOp {
  kind: 'collect';
  prompts: PromptOp[];
  bargeIn: boolean;
  dtmf: boolean;
  speech: boolean;
  /** Ends when this many digits were pressed. */
  numDigits?: number | undefined;
  /** A key that ends the input (it is not part of the digits); '' for none. */
  finishOnKey: string;
  /** Seconds to wait for the first input, and between digits. */
  timeoutSeconds: number;
  /** Seconds of silence that end an utterance. */
  speechTimeoutSeconds: number;
  /** Words and phrases likely to be said (recogniser hints; ignored by the simulator). */
  hints: string[];
}

/** Capture the far end into `sink` until a key, silence, or the maximum length. */
export interface RecordOp {
  kind: 'record';
  /** The recording resource this capture fills; the port opens its sink and closes it at the end. */
  recordingId: string;
  format: RecordingFormat;
  maxSeconds: number;
  silenceTimeoutSeconds: number;
  finishOnKey: string;
  beep: boolean;
  /** Whether the recording gets a transcript of what was said (default false). */
  transcribe?: boolean | undefined;
}

/** Dial `to` and connect it to this call until either side hangs up or `timeLimitSeconds`. */
export interface BridgeOp {
  kind: 'bridge';
  to: string;
  callerId: string;
  ringTimeoutSeconds: number;
  timeLimitSeconds: number;
}

export type MediaOp = SpeakOp | PlayOp | SilenceOp | CollectOp | RecordOp | BridgeOp;

/** Why an operation ended, besides its own completion. */
export type CutShort = 'interrupted' | 'hangup';

export type MediaResult =
  | { kind: 'speak' | 'play' | 'silence'; reason: 'finished' | CutShort }
  | {
    kind: 'collect';
    /** Digits pressed, without the finish key. */
    digits: string;
    /** The words said, when speech was collected (the sandbox hears text exactly). */
    speech: string | null;
    /** Recogniser confidence 0..1 (1 in the sandbox). */
    confidence: number | null;
    reason: 'num_digits' | 'finish_key' | 'timeout' | 'speech' | CutShort;
    /** When the words were said, in talk seconds (live speech only): from voice activity (less its quarter-second pre-roll) to the start of the quiet that ended it. */
    utterance?: { start: number; end: number } | undefined;
  }
  | { kind: 'record'; reason: 'finish_key' | 'silence' | 'max_length' | CutShort; durationSeconds: number }
  | { kind: 'bridge'; outcome: 'completed' | 'busy' | 'no_answer' | 'failed' | CutShort; talkSeconds: number };

/** Input heard on the call, reported as it happens (flow logs; a live UI). */
export type HeardInput =
  | { kind: 'dtmf'; digits: string }
  | { kind: 'speech'; text: string }
  | { kind: 'silence'; seconds: number };

/** What the port reports; implemented by the flow interpreter. */
export interface MediaEvents {
  finished(callId: string, opId: string, result: MediaResult): Promise<void>;
  heard(callId: string, input: HeardInput): Promise<void>;
}

export interface RecordingFormat {
  channels: WavChannelCount;
  sampleRate: WavSampleRate;
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

/** The media side of one carrier: every answered call of that carrier is driven through it. */
export interface MediaPort {
  /**
   * False when the port cannot turn speech into words (a live server without a speech-to-text
   * endpoint): flows whose gathers listen for speech are refused. Absent means it can.
   */
  readonly hearsSpeech?: boolean;
  /** The recordings module connects its sinks at start-up, before any call is answered. */
  connectSinks(sinks: RecordingSinks): void;
  /** The flow interpreter connects itself at start-up: every report goes to it. */
  connectEvents(events: MediaEvents): void;
  /** Starts `op` on `call` (in progress); the end comes back as `MediaEvents.finished(call.id, opId, ...)`. */
  run(trx: Trx, call: CallRow, opId: string, op: MediaOp): Promise<void>;
  /** Cuts the running operation `opId` short; it finishes with reason `interrupted`. No-op if it already ended. */
  interrupt(trx: Trx, call: CallRow, opId: string): Promise<void>;
  /** Sends RFC 4733 digits (0-9, *, #, A-D; `w` waits half a second) to the far end. */
  sendDtmf(trx: Trx, call: CallRow, digits: string): Promise<void>;
  /**
   * Taps the whole call (both parties) into the recording `recordingId` from now on, through a
   * sink from `RecordingSinks`. Stopping (or the call ending) closes the tap; the port closes
   * the sink when the last frame is written, which is how the recordings module learns the
   * audio is complete. Pausing keeps the sink open and writes nothing until started again.
   */
  startCapture(trx: Trx, call: CallRow, recordingId: string, format: RecordingFormat): Promise<void>;
  pauseCapture(trx: Trx, call: CallRow, recordingId: string): Promise<void>;
  stopCapture(trx: Trx, call: CallRow, recordingId: string): Promise<void>;
  /** Seconds of media since the call was answered, on the port's own clock (frames sent, or the test clock). */
  elapsed(trx: Trx, call: CallRow): Promise<number>;
  /**
   * Why this port cannot run `op` yet (a sentence), or null when it can. The interpreter asks
   * before `run`, and a flow that needs what the port lacks fails with call.flow.failed saying
   * so instead of waiting on an operation that would never do what the flow meant. Optional:
   * a port without it runs everything.
   */
  cannotRun?(op: MediaOp): string | null;
}
