// The operations a call flow (or an AI conversation) asks of the audio of one answered call,
// and what each one reports when it ends. Carriers' media ports run them (carriers/media-port.ts
// says how); the flow interpreter and the live conversation runner choose them.
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
  /**
   * Synthesise sentence by sentence and start speaking once the first is ready (live AI
   * replies: the caller hears the agent sooner). Absent: the whole text in one piece.
   */
  bySentence?: boolean | undefined;
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
  /**
   * 'words' (live AI agents): at each pause the words so far are recognised and judged
   * (end-of-utterance.ts): a complete line ends after a short quiet, one that trails off waits
   * longer, and speechTimeoutSeconds is the wait when unsure. Absent: silence alone ends it.
   */
  endOfUtterance?: 'words' | undefined;
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

/**
 * Connect this call's audio to another answered call's (a queue's caller and the call that
 * took it) until either hangs up, `timeLimitSeconds`, or it is interrupted. Both calls run
 * one, each naming the other.
 */
export interface ConnectOp {
  kind: 'connect';
  peerCallId: string;
  timeLimitSeconds: number;
  /**
   * The media node that mixes the two (the queue caller's node): a call held by another node
   * reaches it over a node-to-node media leg. Absent or null: this call's node.
   */
  home?: string | null;
}

/**
 * Join the conference `conferenceId` (the conferences module seated the call in it already)
 * until the flow is interrupted (the participant was removed, the conference ended, a live
 * update) or the call hangs up. Until the conference starts the call hears `wait` looped (null:
 * the built-in hold tone).
 */
export interface ConferenceOp {
  kind: 'conference';
  conferenceId: string;
  wait: PromptOp[] | null;
  /** The media node that mixes the conference (ConferenceMix.home); absent or null: this call's node. */
  home?: string | null;
}

export type MediaOp = SpeakOp | PlayOp | SilenceOp | CollectOp | RecordOp | BridgeOp | ConnectOp | ConferenceOp;

/** Why an operation ended, besides its own completion. */
export type CutShort = 'interrupted' | 'hangup';

export type MediaResult =
  | { kind: 'speak' | 'play' | 'silence' | 'connect'; reason: 'finished' | CutShort }
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
  | { kind: 'bridge'; outcome: 'completed' | 'busy' | 'no_answer' | 'failed' | CutShort; talkSeconds: number }
  /** A conference is only ever left: removed or ended (interrupted), or hung up. */
  | { kind: 'conference'; conferenceId: string; reason: CutShort };

/** Input heard on the call, reported as it happens (flow logs; a live UI). */
export type HeardInput =
  | { kind: 'dtmf'; digits: string }
  | { kind: 'speech'; text: string }
  | { kind: 'silence'; seconds: number };

export interface RecordingFormat {
  channels: WavChannelCount;
  sampleRate: WavSampleRate;
}

