// Media streams of live SIP calls (docs/media-streams.md). The work runs in the RTP engine's
// media worker that carries the call's leg (rtp/stream-leg.ts): it connects the customer's
// WebSocket to the address the streams module resolved and checked, with the signed handshake,
// and sends and takes the audio there, so no audio crosses to this thread. This port only
// orders streams started and stopped, after the ordering transaction commits, and hands the
// worker's lifecycle reports (started, ended with the frames dropped, failed) to the streams
// module. A stream of a call held by another node is started there (node-commands.ts); the
// streams module sends its stop to that node itself (the stream's `node`).
import type { Trx } from '../../store/transaction.ts';
import type { CallRef } from '../../telephony/call-ref.ts';
import type { StreamOrder, StreamStopReason } from '../../telephony/media-streams.ts';
import type { MediaStreamPort, StreamEvents } from '../media-streams.ts';
import type { MediaEvent, WorkerStreamOrder } from '../rtp/protocol.ts';
import type { CallCommand } from './node-commands.ts';

/** What the port needs of the media engine: a leg's streams, run in its worker. */
export interface StreamLegs {
  startStream(callId: string, order: WorkerStreamOrder): Promise<void>;
  stopStream(callId: string, streamId: string, reason: StreamStopReason): Promise<void>;
  /** Every stream of every leg; resolves once their `ended` reports are out and their sockets closed. */
  stopAllStreams(reason: StreamStopReason): Promise<void>;
}

/** Where calls held by other nodes are ordered (live-media.ts OtherNodes). */
interface OtherNodes {
  elsewhere(call: CallRef): boolean;
  send(trx: Trx, call: CallRef, command: CallCommand): Promise<void>;
}

export interface LiveStreamOptions {
  /** How long the WebSocket handshake may take (the flow webhook timeout, as in the sandbox). */
  handshakeTimeoutMs: number;
  log: (err: Error, subject: string) => void;
}

export class LiveStreams implements MediaStreamPort {
  constructor(
    private readonly legs: StreamLegs,
    /** The streams module, which hears how each stream went. */
    private readonly events: () => StreamEvents,
    private readonly options: LiveStreamOptions,
    private readonly nodes: OtherNodes | null = null,
  ) {}

  async start(trx: Trx, call: CallRef, order: StreamOrder): Promise<void> {
    if (this.nodes?.elsewhere(call)) return this.nodes.send(trx, call, { kind: 'start_stream', order });
    trx.afterCommit(() => {
      this.legs.startStream(call.id, { ...order, handshakeTimeoutMs: this.options.handshakeTimeoutMs }).catch(() => {
        // The leg closed between the order and now: the call is over, so is the stream.
        this.report(order.streamId, (e) => e.ended(call.id, order.streamId, { reason: 'call_ended', droppedFrames: 0 }));
      });
    });
  }

  /** The streams module sends a stop to the node holding the stream (its `node`), so it is carried out here. */
  async stop(trx: Trx, call: CallRef, streamId: string, reason: StreamStopReason): Promise<void> {
    trx.afterCommit(() => {
      this.legs.stopStream(call.id, streamId, reason).catch((err: Error) => this.options.log(err, streamId));
    });
  }

  /** The media engine's events: a stream's report goes to the streams module (the leg id is the call id). */
  reported(event: MediaEvent): void {
    if (event.type !== 'stream') return;
    const { id: callId, streamId, report } = event;
    if (report.kind === 'started') this.report(streamId, (e) => e.started(callId, streamId));
    else if (report.kind === 'ended') this.report(streamId, (e) => e.ended(callId, streamId, report.end));
    else this.report(streamId, (e) => e.failed(callId, streamId, report.failure));
  }

  /**
   * The server is closing, and the carrier's stop hangs up every call of this node right after
   * (live-carrier.ts stop): each stream sends `stop` with reason `call_ended` and closes its
   * socket in its worker, and its end is written before the workers go.
   */
  async close(): Promise<void> {
    await this.legs.stopAllStreams('call_ended');
    // The workers' `ended` reports arrived before their replies: their chains are all here now.
    await Promise.all([...this.chains.values()]);
  }

  /** Each stream's reports, in order: `ended` is never written before its `started`. */
  private readonly chains = new Map<string, Promise<void>>();

  private report(streamId: string, send: (events: StreamEvents) => Promise<void>): void {
    const chain = (this.chains.get(streamId) ?? Promise.resolve())
      .then(() => send(this.events()))
      .catch((err: Error) => this.options.log(err, streamId));
    this.chains.set(streamId, chain);
    void chain.then(() => {
      if (this.chains.get(streamId) === chain) this.chains.delete(streamId);
    });
  }
}
