// One media stream's WebSocket to the customer's server: the signed handshake, the pinned
// address, why a connection failed, and the bounded send buffer.
//
// A slow server must never slow the call: frames are written only while the socket's
// unsent bytes stay under a bound; past it a frame is dropped and counted (the count is in
// call.stream.stopped), never queued without limit and never awaited.
import type WebSocket from 'ws';
import { isIP } from 'node:net';
import type { LookupFunction } from 'node:net';
import type { StreamFailure, StreamOrder } from '../../telephony/media-streams.ts';
import { lazyRequire } from '../../platform/lazy-require.ts';

/** Loaded with the first stream (see platform/lazy-require.ts). */
const ws = lazyRequire<typeof WebSocket>('ws');

/** Unsent bytes allowed in the socket: about two seconds of µ-law media frames, as JSON. */
export const SEND_BUFFER_BYTES = 64 * 1024;

export interface SocketHandlers {
  open(): void;
  /** A text frame from the app. */
  message(text: string): void;
  /** The socket closed after it opened; `byServer`: the server closed it (not us). */
  closed(byServer: boolean): void;
  failed(failure: StreamFailure): void;
}

export interface SocketOptions {
  handshakeTimeoutMs: number;
  sendBufferBytes?: number;
}

export class StreamSocket {
  private readonly ws: WebSocket;
  private readonly limit: number;
  private opened = false;
  private closing = false;
  private settled = false;
  /** Frames not sent because the send buffer was full. */
  dropped = 0;
  /** Resolves once the connection is gone (closed, terminated or never made): a shutdown waits for it. */
  readonly gone: Promise<void>;

  constructor(order: Pick<StreamOrder, 'url' | 'address' | 'headers'>, options: SocketOptions, private readonly on: SocketHandlers) {
    this.limit = options.sendBufferBytes ?? SEND_BUFFER_BYTES;
    this.ws = new (ws())(order.url, {
      headers: order.headers,
      handshakeTimeout: options.handshakeTimeoutMs,
      perMessageDeflate: false,
      followRedirects: false,
      ...(order.address && !isIP(hostOf(order.url)) ? { lookup: pinned(order.address) } : {}),
    });
    this.gone = new Promise((resolve) => this.ws.once('close', () => resolve()));
    this.ws.on('open', () => {
      this.opened = true;
      this.on.open();
    });
    this.ws.on('message', (data, isBinary) => {
      if (!isBinary) this.on.message(data.toString());
    });
    this.ws.on('unexpected-response', (_req, res) => {
      this.fail({ reason: 'handshake_status', status: res.statusCode, detail: `the server answered the WebSocket handshake with HTTP ${res.statusCode}` });
      res.resume();
      this.ws.terminate();
    });
    this.ws.on('error', (err: NodeJS.ErrnoException) => {
      if (!this.opened) this.fail(classify(err));
    });
    this.ws.on('close', () => {
      if (!this.opened) return this.fail({ reason: 'connect_refused', detail: 'the connection closed before the handshake finished' });
      if (this.settled) return;
      this.settled = true;
      this.on.closed(!this.closing);
    });
  }

  /** Writes a frame unless the send buffer is full (then it is dropped and counted). */
  send(text: string): boolean {
    if (!this.opened || this.closing || this.ws.readyState !== this.ws.OPEN) return false;
    if (this.ws.bufferedAmount > this.limit) {
      this.dropped += 1;
      return false;
    }
    this.ws.send(text);
    return true;
  }

  /** Sends `last` (the stop frame) if it can, then closes; `closed` follows with byServer false. */
  close(last?: string): void {
    if (this.closing) return;
    if (last) this.send(last);
    this.closing = true;
    if (!this.opened) {
      this.settled = true;
      this.ws.terminate();
      return;
    }
    this.ws.close(1000);
    // A server that never answers the close handshake must not hold the socket.
    setTimeout(() => this.ws.terminate(), 2000).unref();
  }

  private fail(failure: StreamFailure): void {
    if (this.settled) return;
    this.settled = true;
    this.on.failed(failure);
  }
}

function hostOf(url: string): string {
  return new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
}

/** Connects to the address the URL policy checked, whatever DNS says now. */
function pinned(address: string): LookupFunction {
  const family = isIP(address);
  return ((_host: string, options: { all?: boolean }, callback: (...args: any[]) => void) => {
    if (options?.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as unknown as LookupFunction;
}

const TLS_CODES = /^(ERR_TLS|ERR_SSL|CERT_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO_|EPROTO$|HOSTNAME_MISMATCH|ERR_OSSL)/;

function classify(err: NodeJS.ErrnoException): StreamFailure {
  const code = err.code ?? '';
  if (/handshake has timed out/i.test(err.message)) return { reason: 'timeout', detail: 'the server did not finish the WebSocket handshake in time' };
  if (TLS_CODES.test(code)) return { reason: 'tls_error', detail: `TLS failed: ${err.message}` };
  if (code === 'ETIMEDOUT') return { reason: 'timeout', detail: `connecting timed out: ${err.message}` };
  return { reason: 'connect_refused', detail: `connecting failed: ${err.message}` };
}
