// The MediaPort of live SIP calls. The media worker records every answered call whole, both
// directions, into one WAV file as it runs (far end on channel 0); a recording is spans of
// that call, captured by talk time. When a recording stops, its spans are copied from the
// call's file into the recording's sink one second at a time, so memory stays bounded
// whatever the length. Flow operations (speak, play, gather, record) run in
// live-operations.ts; a `record` op is a span of the far end's channel, copied the same way.
// A call held by another node (several nodes on PostgreSQL) is not acted on here: each
// command goes to that node (node-commands.ts), which runs this same code on its own memory.
// With a speech-to-text endpoint the copy ends with the recording's transcript
// (recording-transcript.ts); without one, live recordings have none.
import { open, type FileHandle } from 'node:fs/promises';
import type { Trx } from '../../store/transaction.ts';
import type { CallRef } from '../../telephony/call-ref.ts';
import type { MediaEvents, MediaPort, RecordingSink, RecordingSinks } from '../media-port.ts';
import type { MediaOp, RecordingFormat } from '../../telephony/media-ops.ts';
import { NODE_LOST } from '../../telephony/call-end.ts';
import { CALL_FILE_FRAME_BYTES, CALL_FILE_RATE, readCallChannel, readCallFrames } from '../../media/call-file.ts';
import { transcribeSpans, type TranscribedSide } from './recording-transcript.ts';
import { LiveOperations, type LegAudio } from './live-operations.ts';
import type { TextToSpeech } from '../speech/text-to-speech.ts';
import type { SpeechToText } from '../speech/speech-to-text.ts';
import type { CarrierListeners } from '../listeners.ts';
import { talkSecondsFromAnswer, type CallCommand } from './node-commands.ts';
import { connectionBus, LiveConferences, type ConferenceHomes, type ConferenceLegs } from './live-conferences.ts';
import { LiveStreams, type StreamLegs } from './live-streams.ts';

/** Where calls held by other nodes are sent, and conferences mixed by them told (NodeCommands); absent, every call is this node's. */
export interface OtherNodes extends ConferenceHomes {
  elsewhere(call: CallRef): boolean;
  send(trx: Trx, call: CallRef, command: CallCommand): Promise<void>;
}

const RATE = CALL_FILE_RATE;

/** A live call's media as this port uses it: its leg's audio, and the conference bus (live-conferences.ts). */
export interface LiveCallMedia extends LegAudio, ConferenceLegs, StreamLegs {
  /** The call's whole recording and a promise of it being complete up to `frame` (or the call's end). */
  callRecording(callId: string): { path: string; framesAvailable(): Promise<number>; ended: Promise<void> } | undefined;
  sendDigits(callId: string, digits: string): Promise<void>;
}

interface Capture {
  format: RecordingFormat;
  spans: { start: number; end: number | null }[];
  /** A flow's `record`: only the far end (what the caller said), not the whole call. */
  farOnly?: boolean;
  /** Whether the recording gets a transcript (when a speech-to-text endpoint is configured). */
  transcribe: boolean;
}

export class LiveMediaPort implements MediaPort {
  private readonly captures = new Map<string, Map<string, Capture>>();
  private readonly operations: LiveOperations;
  /** Conferences of this node's live calls, mixed in the RTP workers. */
  readonly conferences: LiveConferences;

  /** Media streams to the customer's WebSocket server, run in the RTP workers (live-streams.ts). */
  readonly streams: LiveStreams;

  /** Gathers hear words only with a speech-to-text endpoint (the carriers file's speech.stt). */
  readonly hearsSpeech: boolean;

  constructor(
    private readonly calls: LiveCallMedia,
    /** The flow interpreter and the recordings service, which hear this port's calls; the audio cache a conference's home fetches announcements into. */
    private readonly listeners: Pick<CarrierListeners, 'media' | 'sinks' | 'streams' | 'audio'>,
    speech: () => TextToSpeech,
    private readonly log: (err: Error, subject: string) => void,
    private readonly stt: SpeechToText | null = null,
    private readonly nodes: OtherNodes | null = null,
    streamHandshakeTimeoutMs = 10_000,
  ) {
    this.streams = new LiveStreams(calls, () => listeners.streams(), { handshakeTimeoutMs: streamHandshakeTimeoutMs, log: this.log }, nodes);
    this.hearsSpeech = stt !== null;
    const hearing = stt ? { stt, farAudio: (callId: string, from: number, to: number, recorded?: number) => this.farAudio(callId, from, to, recorded) } : null;
    this.conferences = new LiveConferences(calls, speech, () => listeners.audio(), () => this.sinks, this.log, nodes);
    const rooms = { waiting: (id: string) => this.conferences.waiting(id), connectionBus, mixedElsewhere: (home: string) => nodes?.isOther(home) ?? false };
    this.operations = new LiveOperations(calls, speech, {
      report: (callId, opId, result) => this.connected().finished(callId, opId, result),
      heard: (callId, input) => this.connected().heard(callId, input),
      captured: (callId, span) => {
        const call = this.callsById.get(callId);
        if (!call) return;
        const capture: Capture = { format: span.format, spans: [{ start: span.start, end: span.end }], farOnly: true, transcribe: span.transcribe };
        this.copy(call, span.recordingId, capture).catch((err: Error) => this.log(err, span.recordingId));
      },
      log: (err, callId, opId) => this.log(err, `${callId} operation ${opId}`),
    }, rooms, hearing);
  }

  /** The rows of calls running operations (a `record` needs its account and direction). */
  private readonly callsById = new Map<string, CallRef>();

  /** The flow interpreter (every operation's end and input heard). */
  private connected(): MediaEvents {
    return this.listeners.media();
  }

  /** The recordings service's sinks for captured audio. */
  private get sinks(): RecordingSinks {
    return this.listeners.sinks();
  }

  /** The call ended (either side): a running operation finishes with `hangup`. */
  hungUp(callId: string): void {
    this.operations.hungUp(callId);
    this.callsById.delete(callId);
  }

  /** The command to send instead of acting, when `call` lives on another node. */
  private elsewhere(call: CallRef): boolean {
    return this.nodes?.elsewhere(call) ?? false;
  }

  async run(trx: Trx, call: CallRef, opId: string, op: MediaOp): Promise<void> {
    if (this.elsewhere(call)) return this.nodes!.send(trx, call, { kind: 'run', opId, op });
    trx.afterCommit(() => {
      this.callsById.set(call.id, call);
      this.operations.start(call.id, opId, op);
    });
  }

  /** What live-operations.ts cannot do without a speech-to-text endpoint: hear speech. */
  cannotRun(op: MediaOp): string | null {
    // A flow that reached here past validation (a number's stored voice_flow) still must not
    // leave a talking caller to time out.
    if (op.kind === 'collect' && op.speech && !this.hearsSpeech) return 'this server has no speech-to-text endpoint for live calls (speech.stt in the carriers file); gather with input ["dtmf"]';
    return null;
  }

  async interrupt(trx: Trx, call: CallRef, opId: string): Promise<void> {
    if (this.elsewhere(call)) return this.nodes!.send(trx, call, { kind: 'interrupt', opId });
    trx.afterCommit(() => this.operations.interrupt(call.id, opId));
  }

  async sendDtmf(trx: Trx, call: CallRef, digits: string): Promise<void> {
    if (this.elsewhere(call)) return this.nodes!.send(trx, call, { kind: 'dtmf', digits });
    trx.afterCommit(() => void this.calls.sendDigits(call.id, digits.replace(/w/gi, '')).catch(() => {}));
  }

  /**
   * The carrier marks the transaction that answers a call: a recording started with the
   * answer starts at the call's first frame, not at the milliseconds that transaction took
   * (audio from the answer on would otherwise be clipped from the recording).
   */
  answering(trx: Trx, callId: string): void {
    const set = this.answeredIn.get(trx) ?? new Set<string>();
    set.add(callId);
    this.answeredIn.set(trx, set);
  }

  private readonly answeredIn = new WeakMap<Trx, Set<string>>();

  async elapsed(trx: Trx, call: CallRef): Promise<number> {
    if (this.answeredIn.get(trx)?.has(call.id)) return 0;
    if (call.ended_at && call.duration_seconds !== null) return Number(call.duration_seconds);
    // Another node's call: its media clock is there; the answer time stored with the call is close.
    if (this.elsewhere(call)) return talkSecondsFromAnswer(call, Date.now()) ?? 0;
    return this.calls.elapsed(call.id) ?? 0;
  }

  async startCapture(trx: Trx, call: CallRef, recordingId: string, format: RecordingFormat): Promise<void> {
    if (this.elsewhere(call)) return this.nodes!.send(trx, call, { kind: 'start_capture', recordingId, format });
    const at = await this.elapsed(trx, call);
    const byId = this.captures.get(call.id) ?? new Map<string, Capture>();
    this.captures.set(call.id, byId);
    // A call's recording gets a transcript, as in the sandbox (with a speech-to-text endpoint).
    const capture = byId.get(recordingId) ?? { format, spans: [], transcribe: true };
    if (capture.spans.at(-1)?.end === null) return;
    capture.spans.push({ start: at, end: null });
    byId.set(recordingId, capture);
  }

  async pauseCapture(trx: Trx, call: CallRef, recordingId: string): Promise<void> {
    if (this.elsewhere(call)) return this.nodes!.send(trx, call, { kind: 'pause_capture', recordingId });
    await this.closeSpan(trx, call, recordingId);
  }

  async stopCapture(trx: Trx, call: CallRef, recordingId: string): Promise<void> {
    if (this.elsewhere(call)) return this.nodes!.send(trx, call, { kind: 'stop_capture', recordingId });
    const capture = await this.closeSpan(trx, call, recordingId);
    if (!capture) {
      // A survivor ending a dead node's call: the audio died with that node, so the recording
      // fails (call.recording.failed) rather than waiting for a file that will never come.
      if (call.carrier_code === NODE_LOST) trx.afterCommit(() => void this.lost(call, recordingId).catch((err: Error) => this.log(err, recordingId)));
      return;
    }
    this.captures.get(call.id)?.delete(recordingId);
    trx.afterCommit(() => {
      this.copy(call, recordingId, capture).catch((err: Error) => this.log(err, recordingId));
    });
  }

  private async lost(call: CallRef, recordingId: string): Promise<void> {
    const sink = await this.sinks.open(call.account_id, recordingId, { channels: 2, sampleRate: RATE });
    await sink.abort('the media node holding the call\'s audio stopped (node_lost), so the audio is lost');
  }

  private async closeSpan(trx: Trx, call: CallRef, recordingId: string): Promise<Capture | undefined> {
    const capture = this.captures.get(call.id)?.get(recordingId);
    if (!capture) return undefined;
    const open = capture.spans.at(-1);
    if (open && open.end === null) open.end = Math.max(open.start, await this.elapsed(trx, call));
    return capture;
  }

  /** The far end's audio (channel 0 of the call's file) between two talk times, once the worker has written it (see Hearing). */
  private async farAudio(callId: string, from: number, to: number, recorded?: number): Promise<Int16Array> {
    const source = this.calls.callRecording(callId);
    if (!source) throw new Error(`the audio of call ${callId} is not on this node`);
    const first = Math.max(0, Math.round(from * RATE));
    const last = Math.max(first, Math.min(Math.round(to * RATE), recorded ?? Infinity));
    await untilWritten(source, last);
    const file = await open(source.path, 'r');
    try {
      return await readCallChannel(file, first, last - first, 0);
    } finally {
      await file.close();
    }
  }

  /** The recording's words from the speech-to-text endpoint; a failing endpoint leaves the recording without a transcript (logged). */
  private async transcribe(file: FileHandle, stt: SpeechToText, call: CallRef, recordingId: string, capture: Capture, sink: RecordingSink): Promise<void> {
    const spans = capture.spans.map((span) => ({ start: span.start, end: span.end ?? span.start }));
    try {
      sink.words(await transcribeSpans(file, stt, spans, sidesOf(call, capture)));
    } catch (err) {
      this.log(err as Error, `${recordingId} transcript`);
    }
  }

  /** Copies the capture's spans from the call's file into the recording's sink, a second at a time. */
  private async copy(call: CallRef, recordingId: string, capture: Capture): Promise<void> {
    const sinks = this.sinks;
    const source = this.calls.callRecording(call.id);
    const sink = await sinks.open(call.account_id, recordingId, capture.format);
    if (!source) {
      await sink.abort('the call\'s audio is not on this node (it was answered on another, or the node restarted)');
      return;
    }
    try {
      await untilWritten(source, Math.round((capture.spans.at(-1)?.end ?? 0) * RATE));
      const file = await open(source.path, 'r');
      try {
        const outbound = call.direction !== 'inbound';
        const chunk = Buffer.alloc(RATE * CALL_FILE_FRAME_BYTES);
        for (const span of capture.spans) {
          let frame = Math.round(span.start * RATE);
          const end = Math.round((span.end ?? span.start) * RATE);
          while (frame < end) {
            const count = Math.min(RATE, end - frame);
            const { far, near } = await readCallFrames(file, frame, count, chunk);
            const frames = far.length;
            if (frames === 0) break;
            await sink.write(toRecording(far, near, capture.format.channels, outbound, capture.farOnly === true));
            frame += frames;
          }
        }
        if (this.stt && capture.transcribe) await this.transcribe(file, this.stt, call, recordingId, capture, sink);
      } finally {
        await file.close();
      }
      await sink.close();
    } catch (err) {
      await sink.abort(`copying the call's audio failed: ${(err as Error).message}`);
      throw err;
    }
  }
}

/**
 * Who speaks on which side of the call's file, and where that lands in the recording: caller on
 * channel 0 and callee on 1 (stereo), both on 0 (mono); a flow's `record` keeps the far end only.
 */
function sidesOf(call: CallRef, capture: Capture): TranscribedSide[] {
  const outbound = call.direction !== 'inbound';
  const far: TranscribedSide = { fileChannel: 0, channel: outbound ? 1 : 0, speaker: outbound ? 'callee' : 'caller' };
  const near: TranscribedSide = { fileChannel: 1, channel: outbound ? 0 : 1, speaker: outbound ? 'caller' : 'callee' };
  if (capture.farOnly) return [{ ...far, channel: 0 }];
  if (capture.format.channels === 1) return [{ ...far, channel: 0 }, { ...near, channel: 0 }];
  return [far, near];
}

/**
 * The worker writes the call's file in half-second chunks, and at once when the far end stops
 * talking (rtp/session.ts): waits until `frame` is on disk, or the call's file is complete, or
 * a minute has passed (a stalled worker must not hold us). Checked every 20 ms, a frame's time:
 * a caller waiting for the agent's answer waits on this, and stat() is cheap.
 */
async function untilWritten(source: { framesAvailable(): Promise<number>; ended: Promise<void> }, frame: number): Promise<void> {
  let available = await source.framesAvailable();
  for (let round = 0; round < 3000 && available < frame; round++) {
    const settled = await Promise.race([source.ended.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 20))]);
    available = await source.framesAvailable();
    if (settled) break;
  }
}

/** File frames (far end, near end) as recording channels: caller on 0, callee on 1, or mixed mono; or the far end alone. */
function toRecording(far: Int16Array, near: Int16Array, channels: 1 | 2, outbound: boolean, farOnly: boolean): Int16Array[] {
  const frames = far.length;
  if (farOnly) return channels === 2 ? [far, new Int16Array(frames)] : [far];
  const [caller, callee] = outbound ? [near, far] : [far, near];
  if (channels === 2) return [caller, callee];
  const mixed = new Int16Array(frames);
  for (let i = 0; i < frames; i++) mixed[i] = Math.max(-32768, Math.min(32767, (caller[i] as number) + (callee[i] as number)));
  return [mixed];
}
