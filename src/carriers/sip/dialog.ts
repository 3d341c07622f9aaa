// Our dialog layer (RFC 3261 section 12): what two user agents share once a call is set up
// (Call-ID, tags, CSeq counters, the remote target from Contact and the route set from
// Record-Route), and the in-dialog requests built from it: ACK for 2xx, BYE, re-INVITE,
// REFER. Requests go to the first route (loose routing) or else to the remote target.
import { EventEmitter } from 'node:events';
import { SipHeaders, type SipRequest, type SipResponse } from './message.ts';
import { formatNameAddr, parseNameAddr, parseUri, randomToken, type SipUri } from './headers.ts';
import type { Peer, TransportName } from './transport.ts';

export interface DialogState {
  callId: string;
  localTag: string;
  remoteTag: string;
  /** From of our requests (name-addr without tag). */
  localUri: string;
  remoteUri: string;
  remoteTarget: string;
  /** In the order our requests carry them. */
  routeSet: string[];
  localSeq: number;
  remoteSeq: number | undefined;
  transport: TransportName;
  localSdp: string;
  remoteSdp: string;
}

/** The network hop for a request inside the dialog. */
export function nextHop(state: Pick<DialogState, 'routeSet' | 'remoteTarget' | 'transport'>, resolve: (host: string) => string = (h) => h): Peer {
  const first = state.routeSet[0];
  const uri = parseUri(first ? parseNameAddr(first).uri : state.remoteTarget);
  const transport = transportOfUri(uri) ?? state.transport;
  return { transport, address: resolve(uri.host), port: uri.port ?? (transport === 'TLS' ? 5061 : 5060) };
}

/** The transport a URI asks for: `sips:` or `;transport=tls` is TLS; undefined when it does not say. */
export function transportOfUri(uri: SipUri): TransportName | undefined {
  if (uri.scheme === 'sips') return 'TLS';
  const param = typeof uri.params.transport === 'string' ? uri.params.transport.toUpperCase() : undefined;
  return param === 'TCP' || param === 'UDP' || param === 'TLS' ? param : undefined;
}

export interface DialogEvents {
  bye: [request: SipRequest];
  notify: [request: SipRequest];
  /** An INFO inside the dialog (answered 200 already): between our own nodes, a conference's state (node-legs.ts). */
  info: [request: SipRequest];
  /** The dialog ended, by BYE either way or failure of an in-dialog request. */
  ended: [by: 'local' | 'remote', reason: string];
}

export class Dialog extends EventEmitter<DialogEvents> {
  ended = false;
  /**
   * Answers a new offer inside the dialog (a re-INVITE or UPDATE with SDP: hold, resume, a new
   * address) and applies it to the media; throws when the offer cannot be accepted (488).
   * Given by whoever runs the dialog's media; without it an offer is answered with the session
   * we have, as for a refresh.
   */
  answerOffer: ((offer: string) => string) | undefined;

  constructor(
    readonly state: DialogState,
    private readonly send: (request: SipRequest, to: Peer) => Promise<SipResponse>,
    private readonly via: (transport: TransportName) => string,
    private readonly contact: string,
  ) {
    super();
  }

  get id(): string {
    return dialogKey(this.state.callId, this.state.localTag, this.state.remoteTag);
  }

  /** Builds an in-dialog request (new CSeq except for ACK, which reuses the INVITE's). */
  build(method: string, options: { headers?: Record<string, string | string[]>; body?: string; contentType?: string; cseq?: number } = {}): { request: SipRequest; to: Peer } {
    const seq = options.cseq ?? ++this.state.localSeq;
    const to = nextHop(this.state);
    const headers = SipHeaders.from({
      Via: this.via(to.transport),
      'Max-Forwards': '70',
      From: formatNameAddr({ ...parseNameAddr(this.state.localUri), params: { tag: this.state.localTag } }),
      To: formatNameAddr({ ...parseNameAddr(this.state.remoteUri), params: { tag: this.state.remoteTag } }),
      'Call-ID': this.state.callId,
      CSeq: `${seq} ${method}`,
      Route: this.state.routeSet,
      Contact: this.contact,
      ...(options.body ? { 'Content-Type': options.contentType ?? 'application/sdp' } : {}),
      ...options.headers,
    });
    return { request: { kind: 'request', method, uri: this.state.remoteTarget, headers, body: options.body ?? '' }, to };
  }

  async request(method: string, options: { headers?: Record<string, string | string[]>; body?: string; contentType?: string } = {}): Promise<SipResponse> {
    const { request, to } = this.build(method, options);
    return this.send(request, to);
  }

  /** Ends the call from our side; resolves with the BYE's response (408 when none came). */
  async bye(reason?: string): Promise<SipResponse | undefined> {
    if (this.ended) return undefined;
    this.ended = true;
    const response = await this.request('BYE', reason ? { headers: { Reason: reason } } : {});
    this.emit('ended', 'local', 'bye');
    return response;
  }

  /** The far end hung up. */
  remoteBye(request: SipRequest): void {
    if (this.ended) return;
    this.ended = true;
    this.emit('bye', request);
    this.emit('ended', 'remote', 'bye');
  }
}

export function dialogKey(callId: string, localTag: string, remoteTag: string): string {
  return `${callId}|${localTag}|${remoteTag}`;
}

export const newTag = () => randomToken(6);
export const newBranch = () => `z9hG4bK${randomToken(10)}`;
export const newCallId = (host: string) => `${randomToken(12)}@${host}`;
