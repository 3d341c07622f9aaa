// One media stream of a live call leg, run inside the media worker (docs/media-streams.md):
// the customer's WebSocket (streams/socket.ts: signed handshake, pinned address, bounded send
// buffer) and the same frames as the sandbox (streams/frames.ts). The leg's session hands it
// each 20 ms frame it took in (`inbound`) and sent (`outbound`), already decoded, and the
// digits the far end pressed; a bidirectional stream's app audio is queued here and paced out
// one frame per tick by `pull`, which the session asks before anything else it would play.
// Only the lifecycle leaves the worker (`report`): started, then ended or failed, once.
import { StreamSocket } from '../streams/socket.ts';
import { FRAME_MS, ServerFrames, parseAppFrame, type AppFrame, type MediaTrack } from '../streams/frames.ts';
import { LINE_FRAME_SAMPLES, TrackEncoder, decodeAppAudio } from '../streams/audio-format.ts';
import type { StreamStopReason } from '../../telephony/media-streams.ts';
import type { StreamReport, WorkerStreamOrder } from './protocol.ts';

/** The app's queued audio is capped (ten minutes at the line rate): an app that floods the queue cannot exhaust the worker's memory. */
const MAX_QUEUED_SAMPLES = 8000 * 600;

type Queued = { pcm: Int16Array; at: number } | { mark: string };

export class LegStream {
  private readonly socket: StreamSocket;
  private readonly frames: ServerFrames;
  private readonly encoders: Record<MediaTrack, TrackEncoder>;
  private readonly sends: Record<MediaTrack, boolean>;
  /** Frames of each track sent since the socket opened: the next one's timestamp is this times 20 ms. */
  private readonly counted: Record<MediaTrack, number> = { inbound: 0, outbound: 0 };
  private opened = false;
  private over = false;
  /** The app's audio and marks, in the order it sent them. */
  private queue: Queued[] = [];
  private queuedSamples = 0;

  constructor(readonly order: WorkerStreamOrder, private readonly report: (report: StreamReport) => void) {
    this.frames = new ServerFrames(order);
    this.encoders = { inbound: new TrackEncoder(order.format), outbound: new TrackEncoder(order.format) };
    this.sends = { inbound: order.track !== 'outbound', outbound: order.track !== 'inbound' };
    this.socket = new StreamSocket(order, { handshakeTimeoutMs: order.handshakeTimeoutMs, sendBufferBytes: order.sendBufferBytes }, {
      open: () => {
        if (this.over) return;
        this.opened = true;
        this.socket.send(this.frames.connected());
        this.socket.send(this.frames.start());
        this.report({ kind: 'started' });
      },
      message: (text) => {
        const frame = order.bidirectional ? parseAppFrame(text) : null;
        if (frame && !this.over) this.fromApp(frame);
      },
      closed: (byServer) => {
        if (byServer) this.finish('remote_closed', false);
      },
      failed: (failure) => {
        if (this.over) return;
        this.over = true;
        this.report({ kind: 'failed', failure });
      },
    });
  }

  get done(): boolean {
    return this.over;
  }

  /** Resolves once the socket is gone (after `stop`: the close handshake, bounded by StreamSocket). */
  get gone(): Promise<void> {
    return this.socket.gone;
  }

  /** Samples of the app's audio waiting to be played. */
  get queued(): number {
    return this.queuedSamples;
  }

  /** The far end's next 20 ms, decoded once, as soon as it has arrived (stream-hearing.ts). */
  inbound(pcm: Int16Array): void {
    if (this.opened && !this.over && this.sends.inbound) this.media('inbound', pcm);
  }

  /** The frame the leg sent this tick. */
  outbound(pcm: Int16Array): void {
    if (this.opened && !this.over && this.sends.outbound) this.media('outbound', pcm);
  }

  /** A key the far end pressed, once it was released. */
  dtmf(digit: string, durationMs: number): void {
    if (this.opened && !this.over) this.socket.send(this.frames.dtmf(digit, durationMs));
  }

  /**
   * Fills `out` with the next 20 ms of the app's audio; false when none is queued (the leg
   * plays what it would have). A mark whose audio has all been taken goes back now: the frame
   * taken is sent this very tick.
   */
  pull(out: Int16Array): boolean {
    if (this.over) return false;
    let filled = 0;
    while (filled < LINE_FRAME_SAMPLES) {
      const head = this.queue[0];
      if (!head) break;
      if ('mark' in head) {
        if (filled > 0) break;
        this.queue.shift();
        this.socket.send(this.frames.mark(head.mark, false));
        continue;
      }
      const chunk = head.pcm.subarray(head.at, head.at + LINE_FRAME_SAMPLES - filled);
      out.set(chunk, filled);
      filled += chunk.length;
      head.at += chunk.length;
      this.queuedSamples -= chunk.length;
      if (head.at >= head.pcm.length) this.queue.shift();
    }
    if (filled === 0) return false;
    out.fill(0, filled);
    // Marks right behind this frame's audio are played with it.
    while (this.queue[0] && 'mark' in this.queue[0]) this.socket.send(this.frames.mark((this.queue.shift() as { mark: string }).mark, false));
    return true;
  }

  /** Sends `stop` and closes; reports `ended` with `reason`. */
  stop(reason: StreamStopReason): void {
    this.finish(reason, true);
  }

  private media(track: MediaTrack, pcm: Int16Array): void {
    // Each track's frame n is at n × 20 ms: inbound frames go as the far end's audio arrives
    // (stream-hearing.ts), between the ticks that send outbound ones.
    this.socket.send(this.frames.media(track, this.counted[track] * FRAME_MS, this.encoders[track].encode(pcm)));
    this.counted[track] += 1;
  }

  private fromApp(frame: AppFrame): void {
    switch (frame.event) {
      case 'media': {
        const pcm = decodeAppAudio(this.order.format, frame.payload);
        if (pcm.length === 0 || this.queuedSamples + pcm.length > MAX_QUEUED_SAMPLES) return;
        this.queue.push({ pcm, at: 0 });
        this.queuedSamples += pcm.length;
        return;
      }
      case 'mark':
        this.queue.push({ mark: frame.name });
        return;
      case 'clear': {
        // Barge-in: the queued audio goes now, and its waiting marks come back cleared.
        const marks = this.queue.filter((q): q is { mark: string } => 'mark' in q);
        this.queue = [];
        this.queuedSamples = 0;
        for (const { mark } of marks) this.socket.send(this.frames.mark(mark, true));
        return;
      }
      case 'stop':
        this.finish('completed', false);
    }
  }

  private finish(reason: StreamStopReason, sendStop: boolean): void {
    if (this.over) return;
    this.over = true;
    this.queue = [];
    this.socket.close(sendStop && this.opened ? this.frames.stop(reason) : undefined);
    this.report({ kind: 'ended', end: { reason, droppedFrames: this.socket.dropped } });
  }
}
