// SIP transactions (RFC 3261 section 17): the layer that makes an unreliable transport
// reliable. Client transactions retransmit requests over UDP (timers A/E, doubling from
// T1 up to T2) until a response arrives or they time out (timers B/F, 64*T1, reported as a
// 408; a connection that cannot be made, as a 503 at once); an INVITE client transaction acknowledges non-2xx finals itself. Server
// transactions absorb retransmitted requests by replaying their last response, and an
// INVITE server transaction retransmits a non-2xx final until the ACK arrives (timer G/H).
import { SipHeaders, type SipRequest, type SipResponse } from './message.ts';
import { parseCSeq, parseVia } from './headers.ts';
import type { Peer, SipTransport } from './transport.ts';
import { countSipResponse } from './sip-metrics.ts';

export interface Timers {
  t1: number;
  t2: number;
  /** How long completed transactions linger to absorb retransmissions (timers D, J, K, I). */
  linger: number;
}

export const DEFAULT_TIMERS: Timers = { t1: 500, t2: 4000, linger: 32_000 };

export interface ClientTransaction {
  request: SipRequest;
  to: Peer;
  onResponse(response: SipResponse): void;
  done: boolean;
  timers: NodeJS.Timeout[];
}

export interface ServerTransaction {
  request: SipRequest;
  from: Peer;
  lastResponse: SipResponse | undefined;
  done: boolean;
  timers: NodeJS.Timeout[];
  /** For INVITE: resolves the ACK wait of a non-2xx final. */
  acked: boolean;
}

function topBranch(message: { headers: SipHeaders }): string {
  const via = message.headers.get('via');
  return via ? String(parseVia(via).params.branch ?? '') : '';
}

function methodOf(message: { headers: SipHeaders }): string {
  return parseCSeq(message.headers.get('cseq') ?? '').method;
}

export class TransactionLayer {
  private readonly clients = new Map<string, ClientTransaction>();
  private readonly servers = new Map<string, ServerTransaction>();

  constructor(private readonly transport: SipTransport, private readonly timers: Timers = DEFAULT_TIMERS) {}

  /** Sends `request` reliably; `onResponse` sees every response (provisional and final) once. */
  sendRequest(request: SipRequest, to: Peer, onResponse: (response: SipResponse) => void): ClientTransaction {
    const key = `${topBranch(request)}|${request.method}`;
    const tx: ClientTransaction = { request, to, onResponse, done: false, timers: [] };
    this.clients.set(key, tx);
    // A connection that cannot be made (refused, a TLS certificate we do not trust) fails the
    // transaction at once, as a 503 that says why (RFC 3261 8.1.3.1), not after timer B.
    void this.transport.send(request, to).catch((error: Error) => this.timeout(key, tx, { status: 503, reason: `Service Unavailable (${error.message})`, local: 'transport' }));
    if (to.transport === 'UDP') this.retransmit(key, tx, this.timers.t1);
    const limit = setTimeout(() => this.timeout(key, tx), 64 * this.timers.t1);
    tx.timers.push(limit);
    return tx;
  }

  /** Routes a response to its client transaction; returns false for strays (e.g. 2xx retransmissions). */
  receiveResponse(response: SipResponse): boolean {
    const key = `${topBranch(response)}|${methodOf(response)}`;
    const tx = this.clients.get(key);
    if (!tx) return false;
    if (tx.done) {
      // A retransmitted final: the ACK we sent was lost.
      if (tx.request.method === 'INVITE' && response.status >= 300) void this.transport.send(this.ackFor(tx.request, response), tx.to);
      return true;
    }
    countSipResponse(response.status, 'received');
    if (response.status < 200) {
      // Provisional: INVITE stops retransmitting; non-INVITE keeps going at T2.
      // (Timer B stops too: once something answered, the UA's ring timeout governs.)
      this.clearTimers(tx, tx.request.method === 'INVITE');
      tx.onResponse(response);
      return true;
    }
    tx.done = true;
    this.clearTimers(tx, true);
    if (tx.request.method === 'INVITE' && response.status >= 300) void this.transport.send(this.ackFor(tx.request, response), tx.to);
    tx.onResponse(response);
    const linger = setTimeout(() => this.clients.delete(key), tx.to.transport === 'UDP' ? this.timers.linger : 0);
    linger.unref();
    return true;
  }

  /**
   * Matches a request against server transactions. Returns the new transaction, or undefined
   * when it was a retransmission (answered here) or an ACK for a non-2xx final (absorbed).
   */
  receiveRequest(request: SipRequest, from: Peer): ServerTransaction | undefined {
    const branch = topBranch(request);
    if (request.method === 'ACK') {
      const invite = this.servers.get(`${branch}|INVITE`);
      if (invite && invite.lastResponse && invite.lastResponse.status >= 300) {
        invite.acked = true;
        this.clearTimers(invite, true);
        return undefined;
      }
      // ACK for a 2xx is its own transaction-less request: the UA core takes it.
      return { request, from, lastResponse: undefined, done: true, timers: [], acked: true };
    }
    const key = `${branch}|${request.method}`;
    const existing = this.servers.get(key);
    if (existing) {
      if (existing.lastResponse) void this.transport.send(existing.lastResponse, existing.from);
      return undefined;
    }
    const tx: ServerTransaction = { request, from, lastResponse: undefined, done: false, timers: [], acked: false };
    this.servers.set(key, tx);
    return tx;
  }

  /** The server transaction an incoming CANCEL refers to (same branch, INVITE). */
  inviteFor(cancel: SipRequest): ServerTransaction | undefined {
    return this.servers.get(`${topBranch(cancel)}|INVITE`);
  }

  respond(tx: ServerTransaction, response: SipResponse): void {
    if (tx.done && tx.lastResponse && tx.lastResponse.status >= 200) return;
    tx.lastResponse = response;
    countSipResponse(response.status, 'sent');
    void this.transport.send(response, tx.from).catch(() => {});
    if (response.status < 200) return;
    tx.done = true;
    const key = `${topBranch(tx.request)}|${tx.request.method}`;
    if (tx.request.method === 'INVITE' && response.status >= 300 && tx.from.transport === 'UDP') {
      this.retransmitResponse(tx, this.timers.t1);
      tx.timers.push(setTimeout(() => this.clearTimers(tx, true), 64 * this.timers.t1));
    }
    const linger = setTimeout(() => {
      this.clearTimers(tx, true);
      this.servers.delete(key);
    }, tx.from.transport === 'UDP' ? this.timers.linger : 64 * this.timers.t1);
    linger.unref();
  }

  shutdown(): void {
    for (const tx of this.clients.values()) this.clearTimers(tx, true);
    for (const tx of this.servers.values()) this.clearTimers(tx, true);
    this.clients.clear();
    this.servers.clear();
  }

  /** The ACK of a non-2xx final: same branch, Request-URI, Call-ID, From, Route; To from the response. */
  private ackFor(invite: SipRequest, response: SipResponse): SipRequest {
    const headers = SipHeaders.from({
      Via: invite.headers.get('via'),
      'Max-Forwards': '70',
      From: invite.headers.get('from'),
      To: response.headers.get('to'),
      'Call-ID': invite.headers.get('call-id'),
      CSeq: `${parseCSeq(invite.headers.get('cseq') ?? '').seq} ACK`,
      Route: invite.headers.getAll('route'),
    });
    return { kind: 'request', method: 'ACK', uri: invite.uri, headers, body: '' };
  }

  private retransmit(key: string, tx: ClientTransaction, interval: number): void {
    const timer = setTimeout(() => {
      if (tx.done || !this.clients.has(key)) return;
      void this.transport.send(tx.request, tx.to).catch(() => {});
      this.retransmit(key, tx, tx.request.method === 'INVITE' ? interval * 2 : Math.min(interval * 2, this.timers.t2));
    }, interval);
    tx.timers.push(timer);
  }

  private retransmitResponse(tx: ServerTransaction, interval: number): void {
    const timer = setTimeout(() => {
      if (tx.acked || !tx.lastResponse) return;
      void this.transport.send(tx.lastResponse, tx.from).catch(() => {});
      this.retransmitResponse(tx, Math.min(interval * 2, this.timers.t2));
    }, interval);
    tx.timers.push(timer);
  }

  private timeout(key: string, tx: ClientTransaction, local: { status: number; reason: string; local: 'timeout' | 'transport' } = { status: 408, reason: 'Request Timeout (no response)', local: 'timeout' }): void {
    if (tx.done) return;
    tx.done = true;
    this.clearTimers(tx, true);
    this.clients.delete(key);
    const headers = SipHeaders.from({
      Via: tx.request.headers.getAll('via'),
      From: tx.request.headers.get('from'),
      To: tx.request.headers.get('to'),
      'Call-ID': tx.request.headers.get('call-id'),
      CSeq: tx.request.headers.get('cseq'),
    });
    tx.onResponse({ kind: 'response', ...local, headers, body: '' });
  }

  private clearTimers(tx: { timers: NodeJS.Timeout[] }, all: boolean): void {
    if (!all) return;
    for (const timer of tx.timers) clearTimeout(timer);
    tx.timers = [];
  }
}
