// A minimal softphone on a UDP socket for registrar tests: it sends REGISTERs (answering the
// digest challenge with a password of our choosing, through our UAC's digest code), and keeps
// every request that reaches it (the INVITEs of offers), answering each INVITE with the status
// the test sets (486 by default). Its Contacts can name any address: a softphone behind NAT
// writes a private one that only its REGISTER's source address leads back to.
import { createSocket, type Socket } from 'node:dgram';
import { randomBytes } from 'node:crypto';
import { parseSipMessage, serializeSipMessage, SipHeaders, type SipRequest, type SipResponse } from '../../src/carriers/sip/message.ts';
import { answerChallenge, parseChallenge } from '../../src/carriers/sip/digest.ts';

export interface RegisterOptions {
  user: string;
  /** undefined: send no Authorization at all (the first REGISTER is then answered with 401). */
  password?: string;
  /** Contact header values (`<sip:...>;expires=N` or `*`); none: a query of the bindings. */
  contacts?: string[];
  expires?: number;
}

export class UdpSoftphone {
  readonly requests: SipRequest[] = [];
  /** What an INVITE is answered with. */
  inviteStatus = 486;
  private readonly callId = `${randomBytes(6).toString('hex')}@softphone`;
  private seq = 0;
  private readonly waiting = new Map<string, (response: SipResponse) => void>();

  private constructor(private readonly socket: Socket, readonly port: number, private readonly registrar: { host: string; port: number }) {
    socket.on('message', (data, from) => this.receive(data, from));
  }

  static async start(registrar: { host: string; port: number }): Promise<UdpSoftphone> {
    const socket = createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    return new UdpSoftphone(socket, socket.address().port, registrar);
  }

  /** Where this socket is, as a Contact URI. */
  get contact(): string {
    return `sip:softphone@127.0.0.1:${this.port}`;
  }

  get invites(): SipRequest[] {
    return this.requests.filter((r) => r.method === 'INVITE');
  }

  /** One REGISTER (its 401 answered with the password, when one is given): the final response. */
  async register(options: RegisterOptions): Promise<SipResponse> {
    const first = await this.send(options);
    if (first.status !== 401 || options.password === undefined) return first;
    const challenge = parseChallenge(first.headers.get('www-authenticate') ?? '');
    const uri = `sip:${this.registrar.host}:${this.registrar.port}`;
    return this.send(options, answerChallenge(challenge, { username: options.user, password: options.password }, 'REGISTER', uri));
  }

  close(): void {
    this.socket.close();
  }

  private send(options: RegisterOptions, authorization?: string): Promise<SipResponse> {
    const branch = `z9hG4bK${randomBytes(6).toString('hex')}`;
    const aor = `sip:${options.user}@${this.registrar.host}`;
    const request: SipRequest = {
      kind: 'request', method: 'REGISTER', uri: `sip:${this.registrar.host}:${this.registrar.port}`, body: '',
      headers: SipHeaders.from({
        Via: `SIP/2.0/UDP 127.0.0.1:${this.port};branch=${branch};rport`, 'Max-Forwards': '70',
        From: `<${aor}>;tag=softphone`, To: `<${aor}>`, 'Call-ID': this.callId, CSeq: `${++this.seq} REGISTER`,
        Contact: options.contacts, Expires: options.expires, 'User-Agent': 'udp-softphone',
        ...(authorization ? { Authorization: authorization } : {}),
      }),
    };
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no final response to REGISTER within 5 s')), 5000);
      this.waiting.set(branch, (response) => {
        clearTimeout(timer);
        resolve(response);
      });
      this.socket.send(serializeSipMessage(request), this.registrar.port, this.registrar.host);
    });
  }

  private receive(data: Buffer, from: { address: string; port: number }): void {
    const message = parseSipMessage(data);
    if (message.kind === 'response') {
      const branch = /branch=([^;,\s]+)/.exec(message.headers.get('via') ?? '')?.[1] ?? '';
      if (message.status >= 200) this.waiting.get(branch)?.(message);
      return;
    }
    if (message.method !== 'ACK' && !this.requests.some((r) => r.headers.get('via') === message.headers.get('via') && r.method === message.method)) this.requests.push(message);
    if (message.method === 'ACK') return;
    const status = message.method === 'INVITE' ? this.inviteStatus : 200;
    const response = {
      kind: 'response' as const, status, reason: status === 200 ? 'OK' : 'Busy Here', body: '',
      headers: SipHeaders.from({
        Via: message.headers.getAll('via'), From: message.headers.get('from'), To: `${message.headers.get('to')};tag=softphone`,
        'Call-ID': message.headers.get('call-id'), CSeq: message.headers.get('cseq'),
      }),
    };
    // Back to whichever node sent it (from its listener, where its Via says responses go).
    this.socket.send(serializeSipMessage(response), from.port, from.address);
  }
}
