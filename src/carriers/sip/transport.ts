// Moves SIP messages over UDP, TCP and TLS. UDP: one socket, a datagram per message. TCP and
// TLS: a listener plus one connection per peer, framed by Content-Length and reused both
// ways (RFC 3261 18: a response goes back on the connection its request came in on; a
// request to a peer we already hold a connection with goes on that connection, RFC 5923).
// TLS connections we open verify the peer's certificate unless the operator turned it off.
import { createSocket, type Socket } from 'node:dgram';

/** The SIP UDP socket's receive buffer asked for (the kernel grants at most net.core.rmem_max). */
const SIP_UDP_RECEIVE_BUFFER_BYTES = 4 * 1024 * 1024;
import { createServer, connect, isIP, type Server, type Socket as TcpSocket } from 'node:net';
import { checkServerIdentity, connect as tlsConnect, createServer as createTlsServer, type PeerCertificate, type Server as TlsServer, type TLSSocket } from 'node:tls';
import { frameLength, parseSipMessage, serializeSipMessage, type SipMessage } from './message.ts';

export type TransportName = 'UDP' | 'TCP' | 'TLS';

export interface Peer {
  transport: TransportName;
  address: string;
  port: number;
  /** For TLS: the name the peer's certificate must carry, when `address` is an IP that it does not. */
  serverName?: string | undefined;
  /** The message came on a connection the peer opened to our listener (answers go back on it). */
  accepted?: boolean;
}

/** Our certificate (for the TLS listener) and how we judge the certificates of peers we connect to. */
export interface TransportTls {
  cert?: Buffer | undefined;
  key?: Buffer | undefined;
  /** CAs that may sign a peer's certificate; undefined means the system's. */
  ca?: Buffer | undefined;
  /** Refuse a peer whose certificate does not verify (chain and name). */
  verify: boolean;
}

export interface TransportOptions {
  host: string;
  udpPort?: number | undefined;
  tcpPort?: number | undefined;
  tlsPort?: number | undefined;
  tls?: TransportTls | undefined;
}

export type MessageHandler = (message: SipMessage, from: Peer) => void;

/** Bytes a TCP peer may send before a complete message; beyond this it is dropped. */
const MAX_TCP_BUFFER = 64 * 1024;
/** A stream connection that has not connected (or finished its handshake) by then has failed. */
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * Which pooled connection a message to `peer` may use. A TLS connection we opened is known by
 * the name its certificate was verified for, so a trunk expecting another name never rides
 * on it; one a peer opened to us (unverified: we ask no client certificate) carries only
 * the answers to what came on it, never our requests.
 */
function keyOf(peer: Peer): string {
  const base = `${peer.transport}:${peer.address}:${peer.port}`;
  if (peer.transport !== 'TLS') return base;
  return peer.accepted ? `${base}#accepted` : `${base}#${peer.serverName ?? peer.address}`;
}

export class SipTransport {
  private udp: Socket | undefined;
  private tcp: Server | undefined;
  private tlsServer: TlsServer | undefined;
  private readonly connections = new Map<string, TcpSocket>();
  /** Connections being opened, so two sends to one peer share one connection. */
  private readonly opening = new Map<string, Promise<TcpSocket>>();
  private handler: MessageHandler = () => {};
  private onTlsError: (error: Error, peer: string) => void = () => {};
  /** Malformed messages received (logged by the owner; never crash the stack). */
  parseErrors = 0;
  udpPort = 0;
  tcpPort = 0;
  tlsPort = 0;

  constructor(private readonly options: TransportOptions) {}

  onMessage(handler: MessageHandler): void {
    this.handler = handler;
  }

  /** Called when a peer's TLS handshake with our listener fails (wrong CA, expired, not TLS at all). */
  onTlsFailure(handler: (error: Error, peer: string) => void): void {
    this.onTlsError = handler;
  }

  async start(): Promise<void> {
    const { host } = this.options;
    if (this.options.udpPort !== undefined) {
      const udp = createSocket({ type: host.includes(':') ? 'udp6' : 'udp4' });
      await new Promise<void>((resolve, reject) => {
        udp.once('error', reject);
        udp.bind(this.options.udpPort, host, () => resolve());
      });
      // A burst of call set-ups brings a burst of responses (a 180 and a 200 OK per call) while
      // the main thread is busy placing those calls; Linux's default receive buffer (208 KiB,
      // a few hundred datagrams) overflowed under 50 new calls a second, the kernel dropped
      // 200 OKs and their retransmissions, and calls ended no_answer (issue 29,
      // docs/benchmarks.md). The kernel caps this at net.core.rmem_max.
      try {
        udp.setRecvBufferSize(SIP_UDP_RECEIVE_BUFFER_BYTES);
      } catch {
        // Refused by the system: the default buffer still works, with less slack.
      }
      udp.on('error', () => {});
      udp.on('message', (data, info) => this.deliver(data, { transport: 'UDP', address: info.address, port: info.port }));
      this.udp = udp;
      this.udpPort = udp.address().port;
    }
    if (this.options.tcpPort !== undefined) {
      this.tcp = createServer((socket) => this.adopt(socket, { transport: 'TCP', accepted: true }));
      this.tcpPort = await listen(this.tcp, this.options.tcpPort, host);
    }
    if (this.options.tlsPort !== undefined) {
      const tls = this.options.tls;
      if (!tls?.cert || !tls.key) throw new Error('a TLS SIP listener needs a certificate and a key');
      this.tlsServer = createTlsServer({ cert: tls.cert, key: tls.key }, (socket) => this.adopt(socket, { transport: 'TLS', accepted: true }));
      this.tlsServer.on('tlsClientError', (error, socket) => this.onTlsError(error, `${socket.remoteAddress}:${socket.remotePort}`));
      this.tlsPort = await listen(this.tlsServer, this.options.tlsPort, host);
    }
  }

  localPort(transport: TransportName): number {
    return transport === 'UDP' ? this.udpPort : transport === 'TCP' ? this.tcpPort : this.tlsPort;
  }

  async send(message: SipMessage, to: Peer): Promise<void> {
    const data = serializeSipMessage(message);
    if (to.transport === 'UDP') {
      if (!this.udp) throw new Error('no UDP SIP listener is configured');
      this.udp.send(data, to.port, to.address);
      return;
    }
    const socket = await this.connection(to);
    socket.write(data);
  }

  async stop(): Promise<void> {
    for (const socket of this.connections.values()) socket.destroy();
    this.connections.clear();
    const close = (server: Server | undefined) => server ? new Promise<void>((resolve) => server.close(() => resolve())) : undefined;
    await Promise.all([
      this.udp ? new Promise<void>((resolve) => this.udp!.close(() => resolve())) : undefined,
      close(this.tcp),
      close(this.tlsServer),
    ]);
  }

  private deliver(data: Buffer, from: Peer): void {
    if (data.length <= 4 && data.toString().trim() === '') return; // keep-alive
    let message: SipMessage;
    try {
      message = parseSipMessage(data);
    } catch {
      this.parseErrors++;
      return;
    }
    this.handler(message, from);
  }

  private async connection(to: Peer): Promise<TcpSocket> {
    const key = keyOf(to);
    const existing = this.connections.get(key);
    if (existing && !existing.destroyed) return existing;
    const pending = this.opening.get(key) ?? this.open(to);
    this.opening.set(key, pending);
    try {
      const socket = await pending;
      // Known by the name we asked for too: a trunk host that is a DNS name finds it again.
      this.remember(key, socket);
      return socket;
    } finally {
      this.opening.delete(key);
    }
  }

  private async open(to: Peer): Promise<TcpSocket> {
    const socket = to.transport === 'TLS' ? this.openTls(to) : connect({ host: to.address, port: to.port });
    const ready = to.transport === 'TLS' ? 'secureConnect' : 'connect';
    socket.setTimeout(CONNECT_TIMEOUT_MS);
    await new Promise<void>((resolve, reject) => {
      socket.once(ready, resolve);
      socket.once('error', (error) => reject(connectError(to, error)));
      socket.once('timeout', () => {
        socket.destroy();
        reject(new Error(`${to.transport} connection to ${to.address}:${to.port} timed out after ${CONNECT_TIMEOUT_MS} ms`));
      });
    });
    socket.setTimeout(0);
    this.adopt(socket, { transport: to.transport, serverName: to.serverName ?? (isIP(to.address) ? undefined : to.address) });
    return socket;
  }

  private openTls(to: Peer): TLSSocket {
    const tls = this.options.tls ?? { verify: true };
    const name = to.serverName ?? (isIP(to.address) ? undefined : to.address);
    return tlsConnect({
      host: to.address, port: to.port,
      // SNI only takes names; without one, the certificate is checked against the IP.
      ...(name ? { servername: name } : {}),
      ...(tls.ca ? { ca: tls.ca } : {}),
      // Offered when the peer asks for a client certificate (mutual TLS).
      ...(tls.cert && tls.key ? { cert: tls.cert, key: tls.key } : {}),
      rejectUnauthorized: tls.verify,
      ...(to.serverName && isIP(to.address) ? { checkServerIdentity: checkAgainst(to.serverName) } : {}),
    });
  }

  private remember(key: string, socket: TcpSocket): void {
    this.connections.set(key, socket);
    socket.once('close', () => {
      if (this.connections.get(key) === socket) this.connections.delete(key);
    });
  }

  /** Reads SIP messages off a stream connection; they are `from` its remote end, as `how` says. */
  private adopt(socket: TcpSocket, how: Omit<Peer, 'address' | 'port'>): void {
    const peer: Peer = { ...how, address: socket.remoteAddress ?? '', port: socket.remotePort ?? 0 };
    this.remember(keyOf(peer), socket);
    let buffer = Buffer.alloc(0);
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (let length = frameLength(buffer); length !== undefined; length = frameLength(buffer)) {
        const frame = buffer.subarray(0, length);
        buffer = buffer.subarray(length);
        if (length > 2) this.deliver(frame, peer);
      }
      if (buffer.length > MAX_TCP_BUFFER) socket.destroy();
    });
    socket.on('error', () => {});
  }
}

async function listen(server: Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return (server.address() as { port: number }).port;
}

/** What an operator reads when a connection fails: which peer, which transport, and the TLS verdict. */
function connectError(to: Peer, error: Error): Error {
  const what = to.transport === 'TLS' ? 'TLS handshake with' : 'TCP connection to';
  return new Error(`${what} ${to.address}:${to.port} failed: ${error.message}`, { cause: error });
}

/** Checks a certificate against a configured name instead of the IP we connected to. */
function checkAgainst(name: string) {
  return (_host: string, cert: PeerCertificate) => checkServerIdentity(name, cert);
}
