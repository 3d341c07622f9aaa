// The small HTTP pieces the call benches' own servers (a webhook receiver, a flow server) need.
import type { IncomingMessage, Server } from 'node:http';

/** Listens on 127.0.0.1 at a free port, keeping connections alive through a long run; its base URL. */
export async function listenLocal(server: Server): Promise<string> {
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

export function readJson(req: IncomingMessage): Promise<any> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
  });
}

export function closeNow(server: Server): void {
  server.closeAllConnections();
  server.close();
}
