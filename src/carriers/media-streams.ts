// What a media port does for media streams (src/telephony/media-streams.ts): it connects the
// customer's WebSocket, sends it the call's audio and takes the app's audio back, and reports
// how each stream went. The sandbox does it on its test clock (simulator/streams.ts), a live
// call in the RTP engine's worker. Like MediaPort, commands are given inside the ordering
// transaction and act after it commits; reports come outside any transaction.
import type { Trx } from '../store/transaction.ts';
import type { CallRef } from '../telephony/call-ref.ts';
import type { StreamEnd, StreamFailure, StreamOrder, StreamStopReason } from '../telephony/media-streams.ts';

/** Implemented by the streams module; every stream reports `started` then `ended`, or `failed`, once. */
export interface StreamEvents {
  started(callId: string, streamId: string): Promise<void>;
  ended(callId: string, streamId: string, end: StreamEnd): Promise<void>;
  failed(callId: string, streamId: string, failure: StreamFailure): Promise<void>;
  /** Media node `nodeId` died (its lease ran out): the streams whose sockets it held are over. */
  nodeLost(nodeId: string): Promise<void>;
}

export interface MediaStreamPort {
  /** Connects and streams `order` on `call` (in progress). */
  start(trx: Trx, call: CallRef, order: StreamOrder): Promise<void>;
  /** Sends `stop` and closes the socket; the stream ends with `reason`. No-op for a stream already over. */
  stop(trx: Trx, call: CallRef, streamId: string, reason: StreamStopReason): Promise<void>;
  /**
   * The server is closing (before its calls are hung up and its store closes): every open
   * stream sends `stop`, closes its socket and reports `ended` (the port's reason: `node_lost`
   * where the call outlives the process, `call_ended` where the shutdown hangs it up);
   * resolves once those reports are written.
   */
  close(): Promise<void>;
}
