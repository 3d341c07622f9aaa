// The SIP user agent core: places calls (INVITE with digest retry on 401/407, CANCEL,
// ACK for 2xx), accepts calls (provisional and final responses, 2xx retransmitted until
// the ACK), serves requests inside dialogs (BYE, re-INVITE and UPDATE answered with the
// media we already have, NOTIFY, OPTIONS, INFO), and sends out-of-dialog OPTIONS and
// REGISTER. It knows nothing of accounts or HTTP: the live carrier decides what a call means.
import { EventEmitter } from 'node:events';
import { SipHeaders, type SipRequest, type SipResponse, type SipMessage } from './message.ts';
import { formatNameAddr, formatUri, parseCSeq, parseNameAddr, parseUri } from './headers.ts';
import { answerChallenge, parseChallenge, type DigestCredentials } from './digest.ts';
import { Dialog, type DialogState, dialogKey, newBranch, newCallId, newTag } from './dialog.ts';
import { DEFAULT_TIMERS, TransactionLayer, type ServerTransaction, type Timers } from './transactions.ts';
import type { Peer, SipTransport, TransportName } from './transport.ts';

export interface UserAgentOptions {
  transport: SipTransport;
  /** Host (or IP) we advertise in Via and Contact: the public address behind NAT. */
  publicHost: string;
  timers?: Timers;
  userAgent?: string;
}

export interface InviteOptions {
  /** Request-URI, e.g. `sip:+15551234567@trunk.example.com`. */
  uri: string;
  /** Where the INVITE goes first (trunk host, or an outbound proxy). */
  peer: Peer;
  from: { user: string; host: string; display?: string };
  to: string;
  sdp: string;
  credentials?: DigestCredentials | undefined;
  headers?: Record<string, string>;
}

export type InviteOutcome =
  | { kind: 'answered'; dialog: Dialog; response: SipResponse }
  | { kind: 'failed'; response: SipResponse };

export const ALLOW = 'INVITE, ACK, CANCEL, BYE, OPTIONS, UPDATE, REFER, NOTIFY, INFO';

/** What stays the same across the REGISTERs of one registration (RFC 3261 10.2.4): its Call-ID, From tag and rising CSeq. */
export interface RegistrationDialog {
  /** Request-URI of the REGISTER: the registrar's domain, e.g. `sip:sip.example.com`. */
  registrar: string;
  /** The address of record bound, e.g. `sip:acme@sip.example.com`. */
  aor: string;
  /** The user part of our Contact: where the registrar sends calls for the AOR. */
  contactUser: string;
  callId: string;
  fromTag: string;
  seq: number;
}

/** An INVITE we sent: progress comes as `provisional` events, the end as the `outcome`. */
export class OutgoingInvite extends EventEmitter<{ provisional: [SipResponse] }> {
  readonly outcome: Promise<InviteOutcome>;
  resolve!: (outcome: InviteOutcome) => void;
  current: SipRequest | undefined;
  currentPeer: Peer | undefined;
  gotProvisional = false;
  cancelRequested = false;
  settled = false;

  constructor() {
    super();
    this.outcome = new Promise((resolve) => {
      this.resolve = resolve;
    });
  }
}

/** An INVITE we received, waiting for the carrier's decision. */
export class IncomingInvite extends EventEmitter<{ canceled: [] }> {
  canceled = false;
  answered: Dialog | undefined;

  constructor(readonly request: SipRequest, readonly from: Peer, readonly tx: ServerTransaction, readonly localTag: string) {
    super();
  }
}

/** An out-of-dialog REGISTER we received, for the registrar to answer (respondTo). */
export interface IncomingRegister {
  request: SipRequest;
  from: Peer;
  tx: ServerTransaction;
}

export class UserAgent extends EventEmitter<{ invite: [IncomingInvite]; register: [IncomingRegister]; error: [Error] }> {
  readonly transactions: TransactionLayer;
  private readonly dialogs = new Map<string, Dialog>();
  /** 2xx we sent, retransmitted until their ACK (keyed by Call-ID and CSeq number). */
  private readonly unacked = new Map<string, NodeJS.Timeout>();
  private readonly timers: Timers;

  constructor(private readonly config: UserAgentOptions) {
    super();
    this.timers = config.timers ?? DEFAULT_TIMERS;
    this.transactions = new TransactionLayer(config.transport, this.timers);
    config.transport.onMessage((message, from) => this.receive(message, from));
  }

  get dialogCount(): number {
    return this.dialogs.size;
  }

  /** Where the peer reaches us for this dialog: our listener of that transport (`sips:` when the request was). */
  contactFor(transport: TransportName, user = 'switchboard', scheme: 'sip' | 'sips' = 'sip'): string {
    const params: Record<string, string> = transport === 'UDP' || scheme === 'sips' ? {} : { transport: transport.toLowerCase() };
    const uri = formatUri({ scheme, user, host: this.config.publicHost, port: this.config.transport.localPort(transport), params });
    return `<${uri}>`;
  }

  via(transport: TransportName): string {
    return `SIP/2.0/${transport} ${this.config.publicHost}:${this.config.transport.localPort(transport)};branch=${newBranch()};rport`;
  }

  invite(options: InviteOptions): OutgoingInvite {
    const call = new OutgoingInvite();
    const callId = newCallId(this.config.publicHost);
    const fromTag = newTag();
    const from = formatNameAddr({ display: options.from.display, uri: formatUri({ scheme: 'sip', user: options.from.user, host: options.from.host, port: undefined, params: {} }), params: { tag: fromTag } });
    const to = formatNameAddr({ display: undefined, uri: options.to, params: {} });
    let seq = 1;
    const tried = new Set<string>();

    const send = (authorization?: { header: string; value: string }) => {
      const request: SipRequest = {
        kind: 'request', method: 'INVITE', uri: options.uri, body: options.sdp,
        headers: SipHeaders.from({
          Via: this.via(options.peer.transport), 'Max-Forwards': '70', From: from, To: to, 'Call-ID': callId, CSeq: `${seq} INVITE`,
          Contact: this.contactFor(options.peer.transport, options.from.user, schemeOf(options.uri)), Allow: ALLOW, Supported: 'replaces, timer',
          'User-Agent': this.config.userAgent ?? 'Switchboard', 'Content-Type': 'application/sdp',
          ...(authorization ? { [authorization.header]: authorization.value } : {}), ...options.headers,
        }),
      };
      call.current = request;
      call.currentPeer = options.peer;
      call.gotProvisional = false;
      this.transactions.sendRequest(request, options.peer, (response) => onResponse(request, response));
    };

    const onResponse = (request: SipRequest, response: SipResponse) => {
      if (call.settled) {
        if (response.status >= 200 && response.status < 300) this.ackAndBye(request, response, options.peer.transport);
        return;
      }
      if (response.status < 200) {
        call.gotProvisional = true;
        if (call.cancelRequested) this.sendCancel(request, options.peer);
        call.emit('provisional', response);
        return;
      }
      if ((response.status === 401 || response.status === 407) && options.credentials && !call.cancelRequested) {
        const header = response.headers.get(response.status === 401 ? 'www-authenticate' : 'proxy-authenticate');
        if (header) {
          const challenge = parseChallenge(header);
          const key = `${challenge.realm}|${challenge.nonce}`;
          // A second challenge for the same nonce means the credentials are wrong (unless stale).
          if (!tried.has(key) || challenge.stale) {
            tried.add(key);
            seq++;
            send({ header: response.status === 401 ? 'Authorization' : 'Proxy-Authorization', value: answerChallenge(challenge, options.credentials, 'INVITE', options.uri) });
            return;
          }
        }
      }
      call.settled = true;
      if (response.status >= 300) {
        call.resolve({ kind: 'failed', response });
        return;
      }
      const dialog = this.dialogFromUac(request, response, options.peer.transport);
      this.sendAck(dialog, seq);
      if (call.cancelRequested) {
        // The callee answered as we canceled: the call exists, so end it properly.
        void dialog.bye('SIP ;cause=487 ;text="Request Terminated"');
        call.resolve({ kind: 'failed', response: { ...response, status: 487, reason: 'Request Terminated' } });
        return;
      }
      call.resolve({ kind: 'answered', dialog, response });
    };

    send();
    return call;
  }

  /** Cancels a ringing outgoing call (after a provisional; before one, as soon as it comes). */
  cancel(call: OutgoingInvite): void {
    if (call.settled || call.cancelRequested) return;
    call.cancelRequested = true;
    if (call.gotProvisional && call.current && call.currentPeer) {
      this.sendCancel(call.current, call.currentPeer);
      return;
    }
    // Nothing has answered yet, so no CANCEL may be sent (RFC 3261 9.1), and the INVITE may go
    // on being retransmitted until Timer B (32 s). The call is over for us now: its outcome is
    // settled at once, while the transaction stays to CANCEL a provisional that comes later, or
    // to ACK and BYE a late 2xx (onResponse above).
    call.resolve({ kind: 'failed', response: canceledBeforeProvisional(call.current) });
  }

  /** Sends a provisional response (180 Ringing, 183 with early media SDP). */
  progress(incoming: IncomingInvite, status = 180, reason = 'Ringing', sdp?: string): void {
    if (incoming.tx.done) return;
    this.transactions.respond(incoming.tx, this.response(incoming.request, status, reason, { tag: incoming.localTag, body: sdp }));
  }

  reject(incoming: IncomingInvite, status: number, reason: string, headers: Record<string, string> = {}): void {
    if (incoming.tx.done) return;
    this.transactions.respond(incoming.tx, this.response(incoming.request, status, reason, { tag: incoming.localTag, headers }));
  }

  /** The final response to a REGISTER (the registrar's headers: Contact list, WWW-Authenticate, Min-Expires). */
  respondTo(incoming: IncomingRegister, status: number, reason: string, headers: Record<string, string | string[]> = {}): void {
    if (incoming.tx.done) return;
    this.transactions.respond(incoming.tx, this.response(incoming.request, status, reason, { tag: newTag(), headers }));
  }

  /** Answers with `sdp`; returns the dialog (2xx retransmitted until the ACK arrives). */
  answer(incoming: IncomingInvite, sdp: string): Dialog {
    const request = incoming.request;
    const transport = incoming.from.transport;
    const response = this.response(request, 200, 'OK', { tag: incoming.localTag, body: sdp, contact: true });
    this.transactions.respond(incoming.tx, response);
    const from = parseNameAddr(request.headers.get('from') ?? '');
    const to = parseNameAddr(request.headers.get('to') ?? '');
    const contact = request.headers.get('contact');
    const dialog = this.track({
      callId: request.headers.get('call-id') ?? '',
      localTag: incoming.localTag,
      remoteTag: String(from.params.tag ?? ''),
      localUri: formatNameAddr({ ...to, params: {} }),
      remoteUri: formatNameAddr({ ...from, params: {} }),
      remoteTarget: contact ? parseNameAddr(contact).uri : formatUri({ scheme: 'sip', user: undefined, host: incoming.from.address, port: incoming.from.port, params: {} }),
      routeSet: request.headers.getAll('record-route'),
      localSeq: Math.floor(Math.random() * 10000),
      remoteSeq: parseCSeq(request.headers.get('cseq') ?? '').seq,
      transport,
      localSdp: sdp,
      remoteSdp: request.body,
    }, transport);
    incoming.answered = dialog;
    this.retransmit2xx(dialog, incoming, response, this.timers.t1, 0);
    return dialog;
  }

  /** Sends an out-of-dialog OPTIONS (a trunk probe); resolves with the final response. */
  options(uri: string, peer: Peer, credentials?: DigestCredentials): Promise<SipResponse> {
    const callId = newCallId(this.config.publicHost);
    const tag = newTag();
    let seq = 0;
    return this.requestWithDigest(peer, credentials, (auth) => ({
      kind: 'request', method: 'OPTIONS', uri, body: '',
      headers: SipHeaders.from({
        Via: this.via(peer.transport), 'Max-Forwards': '70', From: `<sip:switchboard@${this.config.publicHost}>;tag=${tag}`, To: `<${uri}>`,
        'Call-ID': callId, CSeq: `${++seq} OPTIONS`, Contact: this.contactFor(peer.transport), Accept: 'application/sdp', ...(auth ? { [auth.header]: auth.value } : {}),
      }),
    }));
  }

  /**
   * Registers `contactUser`@our address as the contact of `registration.aor` at the registrar
   * (RFC 3261 10.2): one REGISTER, its digest challenge answered once; `expires` 0 removes the
   * binding, and `null` only asks which bindings exist (no Contact: a check of the
   * credentials that changes nothing, RFC 3261 10.2.3). The registration keeps its Call-ID,
   * From tag and CSeq from one refresh to the next.
   */
  register(registration: RegistrationDialog, peer: Peer, expires: number | null, credentials?: DigestCredentials): Promise<SipResponse> {
    return this.requestWithDigest(peer, credentials, (auth) => ({
      kind: 'request', method: 'REGISTER', uri: registration.registrar, body: '',
      headers: SipHeaders.from({
        Via: this.via(peer.transport), 'Max-Forwards': '70',
        From: `<${registration.aor}>;tag=${registration.fromTag}`, To: `<${registration.aor}>`,
        'Call-ID': registration.callId, CSeq: `${++registration.seq} REGISTER`,
        ...(expires === null ? {} : { Contact: this.contactFor(peer.transport, registration.contactUser, schemeOf(registration.registrar)), Expires: String(expires) }),
        Allow: ALLOW, 'User-Agent': this.config.userAgent ?? 'Switchboard',
        ...(auth ? { [auth.header]: auth.value } : {}),
      }),
    }));
  }

  /** Sends an out-of-dialog request built by `build`, answers one 401/407 with `credentials`, and resolves with the final response. */
  private requestWithDigest(peer: Peer, credentials: DigestCredentials | undefined, build: (auth?: { header: string; value: string }) => SipRequest): Promise<SipResponse> {
    const first = build();
    return new Promise((resolve) => {
      this.transactions.sendRequest(first, peer, (response) => {
        if (response.status < 200) return;
        const header = response.headers.get(response.status === 401 ? 'www-authenticate' : 'proxy-authenticate');
        if ((response.status === 401 || response.status === 407) && credentials && header) {
          const value = answerChallenge(parseChallenge(header), credentials, first.method, first.uri);
          this.transactions.sendRequest(build({ header: response.status === 401 ? 'Authorization' : 'Proxy-Authorization', value }), peer, (second) => {
            if (second.status >= 200) resolve(second);
          });
          return;
        }
        resolve(response);
      });
    });
  }

  shutdown(): void {
    for (const timer of this.unacked.values()) clearTimeout(timer);
    this.unacked.clear();
    this.transactions.shutdown();
  }

  // --- receiving -------------------------------------------------------------------------

  private receive(message: SipMessage, from: Peer): void {
    try {
      if (message.kind === 'response') {
        if (!this.transactions.receiveResponse(message)) this.strayResponse(message);
        return;
      }
      this.receiveRequest(message, from);
    } catch (error) {
      this.emit('error', error as Error);
    }
  }

  private receiveRequest(request: SipRequest, from: Peer): void {
    if (request.method === 'CANCEL') {
      this.receiveCancel(request, from);
      return;
    }
    const tx = this.transactions.receiveRequest(request, from);
    if (!tx) return;
    const toTag = parseNameAddr(request.headers.get('to') ?? '').params.tag;
    const fromTag = String(parseNameAddr(request.headers.get('from') ?? '').params.tag ?? '');
    const callId = request.headers.get('call-id') ?? '';
    if (request.method === 'ACK') {
      const seq = parseCSeq(request.headers.get('cseq') ?? '').seq;
      const key = `${callId}|${seq}`;
      const timer = this.unacked.get(key);
      if (timer) clearTimeout(timer);
      this.unacked.delete(key);
      return;
    }
    if (toTag) {
      const dialog = this.dialogs.get(dialogKey(callId, String(toTag), fromTag));
      if (!dialog) {
        this.transactions.respond(tx, this.response(request, 481, 'Call/Transaction Does Not Exist'));
        return;
      }
      this.inDialog(dialog, request, tx);
      return;
    }
    switch (request.method) {
      case 'INVITE': {
        const incoming = new IncomingInvite(request, from, tx, newTag());
        this.incomingByTx.set(tx, incoming);
        this.transactions.respond(tx, this.response(request, 100, 'Trying'));
        if (this.listenerCount('invite') === 0) {
          this.reject(incoming, 503, 'Service Unavailable');
          return;
        }
        this.emit('invite', incoming);
        return;
      }
      case 'OPTIONS':
        this.transactions.respond(tx, this.response(request, 200, 'OK', { headers: { Allow: ALLOW, Accept: 'application/sdp' }, tag: newTag() }));
        return;
      case 'REGISTER':
        // Softphones registering with us (registrar.ts); a node without a registrar refuses.
        if (this.listenerCount('register') === 0) {
          this.transactions.respond(tx, this.response(request, 405, 'Method Not Allowed', { headers: { Allow: ALLOW } }));
          return;
        }
        this.emit('register', { request, from, tx });
        return;
      case 'BYE':
        this.transactions.respond(tx, this.response(request, 481, 'Call/Transaction Does Not Exist'));
        return;
      default:
        this.transactions.respond(tx, this.response(request, 405, 'Method Not Allowed', { headers: { Allow: ALLOW } }));
    }
  }

  private inDialog(dialog: Dialog, request: SipRequest, tx: ServerTransaction): void {
    const seq = parseCSeq(request.headers.get('cseq') ?? '').seq;
    if (dialog.state.remoteSeq !== undefined && seq < dialog.state.remoteSeq && request.method !== 'ACK') {
      this.transactions.respond(tx, this.response(request, 500, 'Server Internal Error', { headers: { 'Retry-After': '1' } }));
      return;
    }
    dialog.state.remoteSeq = seq;
    switch (request.method) {
      case 'BYE':
        this.transactions.respond(tx, this.response(request, 200, 'OK'));
        this.dialogs.delete(dialog.id);
        dialog.remoteBye(request);
        return;
      case 'INVITE':
      case 'UPDATE': {
        // A new offer (hold, resume, a move) is answered by the dialog's media; a refresh without one keeps what we have.
        let answer = dialog.state.localSdp;
        if (request.body.trim() !== '' && dialog.answerOffer) {
          try {
            answer = dialog.answerOffer(request.body);
          } catch {
            this.transactions.respond(tx, this.response(request, 488, 'Not Acceptable Here'));
            return;
          }
          dialog.state.localSdp = answer;
          dialog.state.remoteSdp = request.body;
        }
        if (request.headers.get('contact')) dialog.state.remoteTarget = parseNameAddr(request.headers.get('contact') as string).uri;
        this.transactions.respond(tx, this.response(request, 200, 'OK', { body: answer, contact: true }));
        return;
      }
      case 'NOTIFY':
        this.transactions.respond(tx, this.response(request, 200, 'OK'));
        dialog.emit('notify', request);
        return;
      case 'OPTIONS':
        this.transactions.respond(tx, this.response(request, 200, 'OK', { headers: { Allow: ALLOW } }));
        return;
      case 'INFO':
        this.transactions.respond(tx, this.response(request, 200, 'OK', { headers: { Allow: ALLOW } }));
        dialog.emit('info', request);
        return;
      default:
        this.transactions.respond(tx, this.response(request, 405, 'Method Not Allowed', { headers: { Allow: ALLOW } }));
    }
  }

  private receiveCancel(cancel: SipRequest, from: Peer): void {
    const tx = this.transactions.receiveRequest(cancel, from);
    if (!tx) return;
    const invite = this.transactions.inviteFor(cancel);
    if (!invite) {
      this.transactions.respond(tx, this.response(cancel, 481, 'Call/Transaction Does Not Exist'));
      return;
    }
    this.transactions.respond(tx, this.response(cancel, 200, 'OK'));
    if (invite.done) return;
    const incoming = this.incomingByTx.get(invite);
    const tag = incoming?.localTag ?? newTag();
    this.transactions.respond(invite, this.response(invite.request, 487, 'Request Terminated', { tag }));
    if (incoming) {
      incoming.canceled = true;
      incoming.emit('canceled');
    }
  }

  private readonly incomingByTx = new WeakMap<ServerTransaction, IncomingInvite>();

  /** A 2xx to an INVITE whose transaction is gone: our ACK was lost, send it again. */
  private strayResponse(response: SipResponse): void {
    const cseq = parseCSeq(response.headers.get('cseq') ?? '');
    if (cseq.method !== 'INVITE' || response.status < 200 || response.status >= 300) return;
    const localTag = String(parseNameAddr(response.headers.get('from') ?? '').params.tag ?? '');
    const remoteTag = String(parseNameAddr(response.headers.get('to') ?? '').params.tag ?? '');
    const dialog = this.dialogs.get(dialogKey(response.headers.get('call-id') ?? '', localTag, remoteTag));
    if (dialog) this.sendAck(dialog, cseq.seq);
  }

  // --- building ----------------------------------------------------------------------------

  private response(request: SipRequest, status: number, reason: string, options: { tag?: string; body?: string | undefined; headers?: Record<string, string | string[]>; contact?: boolean } = {}): SipResponse {
    const to = parseNameAddr(request.headers.get('to') ?? '');
    if (options.tag && to.params.tag === undefined && status > 100) to.params.tag = options.tag;
    const dialogCreating = request.method === 'INVITE' && status > 100 && status < 300;
    const headers = SipHeaders.from({
      Via: request.headers.getAll('via'),
      From: request.headers.get('from'),
      To: formatNameAddr(to),
      'Call-ID': request.headers.get('call-id'),
      CSeq: request.headers.get('cseq'),
      'Record-Route': dialogCreating ? request.headers.getAll('record-route') : undefined,
      Contact: options.contact || dialogCreating ? this.contactFor(this.transportOf(request), undefined, schemeOf(request.uri)) : undefined,
      'User-Agent': this.config.userAgent ?? 'Switchboard',
      ...(options.body ? { 'Content-Type': 'application/sdp' } : {}),
      ...options.headers,
    });
    return { kind: 'response', status, reason, headers, body: options.body ?? '' };
  }

  private transportOf(request: SipRequest): TransportName {
    const sent = /SIP\s*\/\s*2\.0\s*\/\s*(TCP|TLS)/i.exec(request.headers.get('via') ?? '');
    return sent ? (sent[1]!.toUpperCase() as TransportName) : 'UDP';
  }

  private dialogFromUac(request: SipRequest, response: SipResponse, transport: TransportName): Dialog {
    const from = parseNameAddr(request.headers.get('from') ?? '');
    const to = parseNameAddr(response.headers.get('to') ?? '');
    const contact = response.headers.get('contact');
    return this.track({
      callId: request.headers.get('call-id') ?? '',
      localTag: String(from.params.tag ?? ''),
      remoteTag: String(to.params.tag ?? ''),
      localUri: formatNameAddr({ ...from, params: {} }),
      remoteUri: formatNameAddr({ ...to, params: {} }),
      remoteTarget: contact ? parseNameAddr(contact).uri : request.uri,
      // A UAC uses the Record-Route of the 2xx in reverse order (RFC 3261 12.1.2).
      routeSet: response.headers.getAll('record-route').reverse(),
      localSeq: parseCSeq(request.headers.get('cseq') ?? '').seq,
      remoteSeq: undefined,
      transport,
      localSdp: request.body,
      remoteSdp: response.body,
    }, transport);
  }

  private track(state: DialogState, transport: TransportName): Dialog {
    const dialog = new Dialog(state, this.dialogSender(), (t) => this.via(t), this.contactFor(transport, undefined, schemeOf(state.remoteTarget)));
    this.dialogs.set(dialog.id, dialog);
    dialog.on('ended', () => this.dialogs.delete(dialog.id));
    return dialog;
  }

  private dialogSender() {
    return (request: SipRequest, to: Peer) => new Promise<SipResponse>((resolve) => {
      this.transactions.sendRequest(request, to, (response) => {
        if (response.status >= 200) resolve(response);
      });
    });
  }

  private sendAck(dialog: Dialog, seq: number): void {
    const { request, to } = dialog.build('ACK', { cseq: seq });
    request.headers.delete('contact');
    void this.config.transport.send(request, to).catch(() => {});
  }

  private ackAndBye(request: SipRequest, response: SipResponse, transport: TransportName): void {
    const dialog = this.dialogFromUac(request, response, transport);
    this.sendAck(dialog, parseCSeq(request.headers.get('cseq') ?? '').seq);
    void dialog.bye();
  }

  private sendCancel(invite: SipRequest, peer: Peer): void {
    // CANCEL copies the INVITE's top Via (same branch), Request-URI, Call-ID, From, To, Route.
    const headers = SipHeaders.from({
      Via: invite.headers.get('via'), 'Max-Forwards': '70', From: invite.headers.get('from'), To: invite.headers.get('to'),
      'Call-ID': invite.headers.get('call-id'), CSeq: `${parseCSeq(invite.headers.get('cseq') ?? '').seq} CANCEL`, Route: invite.headers.getAll('route'),
    });
    this.transactions.sendRequest({ kind: 'request', method: 'CANCEL', uri: invite.uri, headers, body: '' }, peer, () => {});
  }

  private retransmit2xx(dialog: Dialog, incoming: IncomingInvite, response: SipResponse, interval: number, elapsed: number): void {
    const key = `${dialog.state.callId}|${parseCSeq(incoming.request.headers.get('cseq') ?? '').seq}`;
    if (incoming.from.transport !== 'UDP') {
      // Reliable transports need no retransmission, but the ACK still settles the answer.
      this.unacked.set(key, setTimeout(() => this.unacked.delete(key), 64 * this.timers.t1));
      return;
    }
    const timer = setTimeout(() => {
      if (!this.unacked.has(key)) return;
      if (elapsed + interval >= 64 * this.timers.t1) {
        // Never acknowledged: the call is not up (RFC 3261 13.3.1.4), so end it.
        this.unacked.delete(key);
        void dialog.bye();
        return;
      }
      void this.config.transport.send(response, incoming.from).catch(() => {});
      this.retransmit2xx(dialog, incoming, response, Math.min(interval * 2, this.timers.t2), elapsed + interval);
    }, interval);
    this.unacked.set(key, timer);
  }
}

/** `sips` when a URI asks for TLS end to end (RFC 3261 19.1), else `sip`. */
function schemeOf(uri: string): 'sip' | 'sips' {
  return /^sips:/i.test(uri.trim()) ? 'sips' : 'sip';
}

/** The outcome of an INVITE we gave up on before any response: a 487 made up here. */
function canceledBeforeProvisional(request: SipRequest | undefined): SipResponse {
  const headers = SipHeaders.from(request ? {
    Via: request.headers.getAll('via'), From: request.headers.get('from'), To: request.headers.get('to'),
    'Call-ID': request.headers.get('call-id'), CSeq: request.headers.get('cseq'),
  } : {});
  return { kind: 'response', status: 487, reason: 'Request Terminated (canceled before any provisional response)', headers, body: '', local: 'canceled' };
}
