// The customer's media stream server in tests: a `ws` WebSocketServer on 127.0.0.1 that keeps
// every connection's handshake headers and the frames it got, in order, and lets the test
// answer (send app frames, close). `behaviour` picks what the server does on a connection.
import { WebSocketServer, type WebSocket } from 'ws';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StreamConnection {
  headers: IncomingMessage['headers'];
  /** The path and query the server was asked for. */
  path: string;
  frames: any[];
  socket: WebSocket;
  closed: Promise<void>;
  /** Waits until `predicate` holds over the frames so far; returns them. */
  waitFor(predicate: (frames: any[]) => boolean, what: string, timeoutMs?: number): Promise<any[]>;
  send(frame: unknown): void;
}

export interface StreamServer {
  url: string;
  connections: StreamConnection[];
  /** The next connection (already made or to come). */
  connection(index: number, timeoutMs?: number): Promise<StreamConnection>;
  close(): Promise<void>;
}

/** `onFrame` sees each frame as it arrives (an echo answers media with media). */
export async function startStreamServer(onFrame?: (connection: StreamConnection, frame: any) => void): Promise<StreamServer> {
  const http: Server = createServer();
  const wss = new WebSocketServer({ server: http });
  const connections: StreamConnection[] = [];
  const waiters: Array<() => void> = [];
  wss.on('connection', (socket, request) => {
    const listeners: Array<() => void> = [];
    const connection: StreamConnection = {
      headers: request.headers,
      path: request.url ?? '/',
      frames: [],
      socket,
      closed: new Promise((resolve) => socket.once('close', () => resolve())),
      send: (frame) => socket.send(JSON.stringify(frame)),
      async waitFor(predicate, what, timeoutMs = 40_000) {
        if (predicate(connection.frames)) return connection.frames;
        return new Promise((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`the stream server never got ${what}; frames: ${summary(connection.frames)}`)), timeoutMs);
          const check = () => {
            if (!predicate(connection.frames)) return;
            clearTimeout(timer);
            listeners.splice(listeners.indexOf(check), 1);
            resolve(connection.frames);
          };
          listeners.push(check);
        });
      },
    };
    socket.on('message', (data) => {
      const frame = JSON.parse(data.toString());
      connection.frames.push(frame);
      onFrame?.(connection, frame);
      for (const listener of [...listeners]) listener();
    });
    connections.push(connection);
    for (const waiter of waiters.splice(0)) waiter();
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}/media`,
    connections,
    async connection(index, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (!connections[index]) {
        if (Date.now() > deadline) throw new Error(`stream connection ${index} never came`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
      return connections[index]!;
    },
    async close() {
      for (const c of connections) c.socket.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

function summary(frames: any[]): string {
  const kinds = frames.map((f) => f.event);
  return kinds.length > 40 ? `${kinds.slice(0, 20).join(',')} ... ${kinds.slice(-10).join(',')} (${kinds.length})` : kinds.join(',');
}
