// Media streams in the sandbox: a real WebSocket to the customer's server (loopback allowed),
// fed from the simulated call on its test clock. What the far end says (a developer's
// POST /v1/sandbox/calls/{id}/say, or a caller script) is spoken by the embedded
// text-to-speech and sent as `inbound` media frames stamped with the talk time it was said
// at; what the flow says goes out as `outbound` frames; a key the far end presses is a `dtmf`
// frame. The app's audio (bidirectional) is queued on the call's sound timeline (flow-sound.ts)
// after whatever it sent before, in files under the data dir, so the simulated caller hears
// it and recordings hold it at its place; a `mark` comes back when the test clock passes the
// end of the audio before it (a durable job on that clock), `clear` cuts the queue now.
//
// The sandbox has no audio between words: media frames come for speech only, so their
// timestamps jump over the silences (a live stream sends a frame every 20 ms).
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Platform } from '../../platform/context.ts';
import type { Trx } from '../../store/transaction.ts';
import { inTransaction } from '../../store/transaction.ts';
import type { CallRef } from '../../telephony/call-ref.ts';
import type { StreamOrder, StreamStopReason } from '../../telephony/media-streams.ts';
import type { MediaStreamPort, StreamEvents } from '../media-streams.ts';
import { encodeWav } from '../../media/wav.ts';
import { EmbeddedTextToSpeech, type TextToSpeech } from '../speech/text-to-speech.ts';
import { FRAME_MS, ServerFrames, parseAppFrame, type AppFrame, type MediaTrack } from '../streams/frames.ts';
import { LINE_FRAME_SAMPLES, TrackEncoder, decodeAppAudio } from '../streams/audio-format.ts';
import { StreamSocket } from '../streams/socket.ts';
import { addSound, cutSound, flowChannel, type CallSound } from './flow-sound.ts';

const MARK_JOB = 'simulator.stream_mark';
/** How long a key press lasts in the sandbox, in ms (dtmf frames carry it). */
const SANDBOX_DTMF_MS = 100;
const LINE_RATE = 8000;

/** What the streams need of the simulator's media port. */
export interface SimulatedCallAudio {
  /** The call's sound timeline (SimState.sound), read and written in the caller's transaction. */
  readSound(trx: Trx, callId: string): Promise<CallSound | undefined>;
  writeSound(trx: Trx, callId: string, sound: CallSound): Promise<void>;
  elapsed(trx: Trx, call: CallRef): Promise<number>;
}

interface MarkStep {
  streamId: string;
  mark: number;
}

interface SandboxStream {
  order: StreamOrder;
  call: CallRef;
  socket: StreamSocket;
  frames: ServerFrames;
  encoders: Record<MediaTrack, TrackEncoder>;
  /** Talk seconds at which the stream started: its timestamp 0. */
  startedAt: number;
  /** The next free timestamp of each track, in ms. */
  next: Record<MediaTrack, number>;
  /** Talk seconds at which the app's queued audio ends. */
  playEnd: number;
  /** The app's audio received but not on the timeline yet (placed by the next flush). */
  pending: Int16Array[];
  /** Marks waiting for their audio to play, by number. */
  marks: Map<number, string>;
  nextMark: number;
  nextFile: number;
  /** Every piece of work on the stream, in the order it arrived. */
  chain: Promise<void>;
  over: boolean;
}

export class SimulatedStreams implements MediaStreamPort {
  private readonly streams = new Map<string, SandboxStream>();
  /** Reports on their way to the streams module (a shutdown waits for them). */
  private readonly reports = new Set<Promise<void>>();
  private speech: TextToSpeech | null = null;

  constructor(
    private readonly platform: Platform,
    private readonly audio: SimulatedCallAudio,
    private readonly lock: (trx: Trx, callId: string) => Promise<CallRef | undefined>,
    /** The streams service, which hears how each stream went. */
    private readonly events: () => StreamEvents,
  ) {
    platform.jobs.register<MarkStep>(MARK_JOB, async (step) => {
      const stream = this.streams.get(step.streamId);
      const name = stream?.marks.get(step.mark);
      if (!stream || name === undefined) return;
      stream.marks.delete(step.mark);
      stream.socket.send(stream.frames.mark(name, false));
    });
  }

  /**
   * The server is closing. A sandbox call outlives the process (its steps are durable jobs the
   * next process runs), but the socket cannot: each stream sends `stop` with reason `node_lost`,
   * as a crash would end it (the next process finds it), closes its socket, and its end is
   * written (call.stream.stopped, a held flow goes on) before the store closes.
   */
  async close(): Promise<void> {
    const open = [...this.streams.values()];
    for (const stream of open) this.finish(stream, 'node_lost', true);
    await Promise.all([...this.reports, ...open.map((stream) => stream.socket.gone)]);
    const speech = this.speech;
    this.speech = null;
    await speech?.close();
  }

  async start(trx: Trx, call: CallRef, order: StreamOrder): Promise<void> {
    const startedAt = await this.audio.elapsed(trx, call);
    trx.afterCommit(() => this.open(call, order, startedAt));
  }

  async stop(trx: Trx, _call: CallRef, streamId: string, reason: StreamStopReason): Promise<void> {
    trx.afterCommit(() => {
      const stream = this.streams.get(streamId);
      if (stream) this.then(stream, async () => this.finish(stream, reason, true));
    });
  }

  /** The far end spoke or pressed keys at `at` talk seconds (simulator/media.ts tells every stream of the call). */
  heard(trx: Trx, call: CallRef, input: { kind: 'dtmf'; digits: string } | { kind: 'speech'; text: string }, at: number): void {
    const streams = this.of(call.id).filter((s) => input.kind === 'dtmf' || s.order.track !== 'outbound');
    if (streams.length === 0) return;
    trx.afterCommit(() => {
      for (const stream of streams) {
        this.then(stream, async () => {
          if (input.kind === 'dtmf') {
            for (const digit of input.digits) stream.socket.send(stream.frames.dtmf(digit, SANDBOX_DTMF_MS));
          } else {
            await this.speak(stream, 'inbound', input.text, at);
          }
        });
      }
    });
  }

  /** The flow says `text` from `at` talk seconds: the `outbound` track hears it. */
  said(trx: Trx, call: CallRef, text: string, at: number): void {
    const streams = this.of(call.id).filter((s) => s.order.track !== 'inbound');
    if (streams.length === 0) return;
    trx.afterCommit(() => {
      for (const stream of streams) this.then(stream, () => this.speak(stream, 'outbound', text, at));
    });
  }

  private of(callId: string): SandboxStream[] {
    return [...this.streams.values()].filter((s) => s.call.id === callId && !s.over);
  }

  private open(call: CallRef, order: StreamOrder, startedAt: number): void {
    const description = { ...order, streamId: order.streamId };
    const stream: SandboxStream = {
      order, call, startedAt, frames: new ServerFrames(description),
      encoders: { inbound: new TrackEncoder(order.format), outbound: new TrackEncoder(order.format) },
      next: { inbound: 0, outbound: 0 }, playEnd: startedAt, pending: [], marks: new Map(), nextMark: 1, nextFile: 1,
      chain: Promise.resolve(), over: false,
      socket: undefined as unknown as StreamSocket,
    };
    this.streams.set(order.streamId, stream);
    stream.socket = new StreamSocket(order, { handshakeTimeoutMs: this.platform.config.flowWebhookTimeoutMs }, {
      open: () => {
        stream.socket.send(stream.frames.connected());
        stream.socket.send(stream.frames.start());
        this.report((e) => e.started(call.id, order.streamId));
        this.then(stream, () => this.catchUp(stream));
      },
      message: (text) => {
        const frame = order.bidirectional ? parseAppFrame(text) : null;
        if (frame) this.then(stream, () => this.fromApp(stream, frame));
      },
      closed: (byServer) => {
        if (byServer) this.then(stream, async () => this.finish(stream, 'remote_closed', false));
      },
      failed: (failure) => {
        if (stream.over) return;
        stream.over = true;
        this.streams.delete(order.streamId);
        this.report((e) => e.failed(call.id, order.streamId, failure));
      },
    });
  }

  /**
   * What was said on the call between the stream's start and its socket opening (the verb
   * after it runs at once, the far end may already talk): sent before anything newer.
   */
  private async catchUp(stream: SandboxStream): Promise<void> {
    const segments = await inTransaction(this.platform.database.db, async (trx) => (await this.audio.readSound(trx, stream.call.id))?.segments ?? []);
    const flow = flowChannel(stream.call);
    for (const segment of segments) {
      // A line under way when the stream started is sent whole, from the stream's start.
      if (segment.end <= stream.startedAt) continue;
      const track: MediaTrack = segment.channel === flow ? 'outbound' : 'inbound';
      if (stream.order.track === 'both' || stream.order.track === track) await this.speak(stream, track, segment.text, Math.max(segment.start, stream.startedAt));
    }
  }

  /** Runs `work` after everything queued on the stream before it; errors are logged, never thrown. */
  private then(stream: SandboxStream, work: () => Promise<void>): void {
    stream.chain = stream.chain.then(() => (stream.over ? undefined : work())).catch((err: Error) => {
      this.platform.log.error({ err, stream: stream.order.streamId }, 'sandbox media stream work failed');
    });
  }

  private report(send: (events: StreamEvents) => Promise<void>): void {
    const report = send(this.events()).catch((err: Error) => this.platform.log.error({ err }, 'reporting a media stream failed'));
    this.reports.add(report);
    void report.finally(() => this.reports.delete(report));
  }

  /** The stream is over: `stop` to the app (unless the server closed it), the socket closed, the end reported. */
  private finish(stream: SandboxStream, reason: StreamStopReason, sendStop: boolean): void {
    if (stream.over) return;
    stream.over = true;
    this.streams.delete(stream.order.streamId);
    stream.socket.close(sendStop ? stream.frames.stop(reason) : undefined);
    this.report((e) => e.ended(stream.call.id, stream.order.streamId, { reason, droppedFrames: stream.socket.dropped }));
  }

  /** Sends `text`, spoken, as 20 ms frames of `track` from talk time `at` (or after what the track sent last). */
  private async speak(stream: SandboxStream, track: MediaTrack, text: string, at: number): Promise<void> {
    this.speech ??= new EmbeddedTextToSpeech();
    const pcm = await this.speech.synthesize(text);
    const from = Math.max(stream.next[track], Math.round(((at - stream.startedAt) * 1000) / FRAME_MS) * FRAME_MS);
    const frames = Math.ceil(pcm.length / LINE_FRAME_SAMPLES);
    const frame = new Int16Array(LINE_FRAME_SAMPLES);
    for (let i = 0; i < frames; i++) {
      frame.fill(0);
      frame.set(pcm.subarray(i * LINE_FRAME_SAMPLES, (i + 1) * LINE_FRAME_SAMPLES));
      stream.socket.send(stream.frames.media(track, from + i * FRAME_MS, stream.encoders[track].encode(frame)));
    }
    stream.next[track] = from + frames * FRAME_MS;
  }

  private async fromApp(stream: SandboxStream, frame: AppFrame): Promise<void> {
    switch (frame.event) {
      case 'media':
        stream.pending.push(decodeAppAudio(stream.order.format, frame.payload));
        // Audio that arrives together is placed together (one file, one write of the call's state).
        if (stream.pending.length === 1) this.then(stream, () => this.flush(stream));
        return;
      case 'mark':
        return this.mark(stream, frame.name);
      case 'clear':
        return this.clear(stream);
      case 'stop':
        return this.finish(stream, 'completed', false);
    }
  }

  /** Puts the app's pending audio on the call's timeline, after what it queued before. */
  private async flush(stream: SandboxStream): Promise<void> {
    if (stream.pending.length === 0) return;
    const pcm = concat(stream.pending);
    stream.pending = [];
    const dir = join(this.platform.config.dataDir, 'streams');
    await mkdir(dir, { recursive: true });
    const path = join(dir, `${stream.order.streamId}-${stream.nextFile++}.wav`);
    await writeFile(path, encodeWav({ sampleRate: LINE_RATE, channels: 1, samples: [pcm] }));
    const seconds = pcm.length / LINE_RATE;
    await inTransaction(this.platform.database.db, async (trx) => {
      const call = await this.lock(trx, stream.call.id);
      if (!call || call.status !== 'in_progress') return;
      const now = await this.audio.elapsed(trx, call);
      const start = round3(Math.max(stream.playEnd, now));
      const end = round3(start + seconds);
      const sound = addSound(await this.audio.readSound(trx, call.id), { plays: [{ channel: flowChannel(call), path, fileSeconds: seconds, start, end, offset: 0 }] });
      await this.audio.writeSound(trx, call.id, sound);
      stream.playEnd = end;
    });
  }

  /** A mark comes back once the audio queued before it has played on the test clock. */
  private async mark(stream: SandboxStream, name: string): Promise<void> {
    await this.flush(stream);
    const number = stream.nextMark++;
    await inTransaction(this.platform.database.db, async (trx) => {
      const call = await this.lock(trx, stream.call.id);
      if (!call) return;
      const wait = stream.playEnd - await this.audio.elapsed(trx, call);
      stream.marks.set(number, name);
      await this.platform.jobs.enqueue(trx, MARK_JOB, { streamId: stream.order.streamId, mark: number } satisfies MarkStep, {
        delaySeconds: Math.max(0, wait) * this.platform.config.simTimeScale,
        clockId: call.mode === 'sandbox' ? call.account_id : null,
      });
    });
  }

  /** Barge-in: the app's queued audio stops now, and its waiting marks come back cleared. */
  private async clear(stream: SandboxStream): Promise<void> {
    stream.pending = [];
    await inTransaction(this.platform.database.db, async (trx) => {
      const call = await this.lock(trx, stream.call.id);
      if (!call) return;
      const now = await this.audio.elapsed(trx, call);
      const sound = cutSound(await this.audio.readSound(trx, call.id), flowChannel(call), now);
      if (sound) await this.audio.writeSound(trx, call.id, sound);
      stream.playEnd = now;
    });
    for (const [number, name] of stream.marks) {
      stream.marks.delete(number);
      stream.socket.send(stream.frames.mark(name, true));
    }
  }
}

function concat(parts: Int16Array[]): Int16Array {
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

const round3 = (s: number) => Math.round(s * 1000) / 1000;
