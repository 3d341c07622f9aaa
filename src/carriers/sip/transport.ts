// Moves SIP messages over UDP and TCP. UDP: one socket, a datagram per message. TCP: a
// listener plus one connection per peer (reused both ways, as RFC 3261 18 asks: a response
// goes back on the connection its request came in on), framed by Content-Length.
import { createSocket, type Socket } from 'node:dgram';
import { createServer, connect, type Server, type Socket as TcpSocket } from 'node:net';
import { frameLength, parseSipMessage, serializeSipMessage, type SipMessage } from './message.ts';

export type TransportName = 'UDP' | 'TCP';

export interface Peer {
  transport: TransportName;
  address: string;
  port: number;
}

export interface TransportOptions {
  host: string;
  udpPort?: number | undefined;
  tcpPort?: number | undefined;
}

export type MessageHandler = (message: SipMessage, from: Peer) => void;

/** Bytes a TCP peer may send before a complete message; beyond this it is dropped. */
const MAX_TCP_BUFFER = 64 * 1024;

export class SipTransport {
  private udp: Socket | undefined;
  private tcp: Server | undefined;
  private readonly connections = new Map<string, TcpSocket>();
  private handler: MessageHandler = () => {};
  /** Malformed messages received (logged by the owner; never crash the stack). */
  parseErrors = 0;
  udpPort = 0;
  tcpPort = 0;

  constructor(private readonly options: TransportOptions) {}

  onMessage(handler: MessageHandler): void {
    this.handler = handler;
  }

  async start(): Promise<void> {
    const { host } = this.options;
    if (this.options.udpPort !== undefined) {
      const udp = createSocket({ type: host.includes(':') ? 'udp6' : 'udp4' });
      await new Promise<void>((resolve, reject) => {
        udp.once('error', reject);
        udp.bind(this.options.udpPort, host, () => resolve());
      });
      udp.on('error', () => {});
      udp.on('message', (data, info) => this.deliver(data, { transport: 'UDP', address: info.address, port: info.port }));
      this.udp = udp;
      this.udpPort = udp.address().port;
    }
    if (this.options.tcpPort !== undefined) {
      const tcp = createServer((socket) => this.adopt(socket));
      await new Promise<void>((resolve, reject) => {
        tcp.once('error', reject);
        tcp.listen(this.options.tcpPort, host, () => resolve());
      });
      this.tcp = tcp;
      this.tcpPort = (tcp.address() as { port: number }).port;
    }
  }

  localPort(transport: TransportName): number {
    return transport === 'UDP' ? this.udpPort : this.tcpPort;
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
    await Promise.all([
      this.udp ? new Promise<void>((resolve) => this.udp!.close(() => resolve())) : undefined,
      this.tcp ? new Promise<void>((resolve) => this.tcp!.close(() => resolve())) : undefined,
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
    const key = `${to.address}:${to.port}`;
    const existing = this.connections.get(key);
    if (existing && !existing.destroyed) return existing;
    const socket = connect({ host: to.address, port: to.port });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    this.adopt(socket);
    return socket;
  }

  private adopt(socket: TcpSocket): void {
    const peer: Peer = { transport: 'TCP', address: socket.remoteAddress ?? '', port: socket.remotePort ?? 0 };
    const key = `${peer.address}:${peer.port}`;
    this.connections.set(key, socket);
    let buffer = Buffer.alloc(0);
    socket.setNoDelay(true);
    socket.on('data', (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (let length = frameLength(buffer); length !== undefined; length = frameLength(buffer)) {
        const frame = buffer.subarray(0, length);
        buffer = buffer.subarray(length);
        if (length > 2) this.deliver(frame, peer);
      }
      if (buffer.length > MAX_TCP_BUFFER) socket.destroy();
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      if (this.connections.get(key) === socket) this.connections.delete(key);
    });
  }
}
