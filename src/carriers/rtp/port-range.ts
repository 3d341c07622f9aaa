// Binds a UDP socket on a free even port of the configured RTP range (odd ports are RTCP's
// by convention). Starts at a random port so concurrent calls do not all race for the
// first one, and skips ports another process holds.
import { createSocket, type Socket } from 'node:dgram';
import { lookup as dnsLookup, type LookupOneOptions } from 'node:dns';
import { isIP } from 'node:net';

export interface PortRange {
  min: number;
  max: number;
}

export async function bindInRange(host: string, range: PortRange, inUse: Set<number>): Promise<{ socket: Socket; port: number }> {
  const first = range.min + (range.min % 2);
  const count = Math.floor((range.max - first) / 2) + 1;
  if (count <= 0) throw new Error(`RTP port range ${range.min}-${range.max} holds no even port`);
  const startAt = Math.floor(Math.random() * count);
  for (let i = 0; i < count; i++) {
    const port = first + ((startAt + i) % count) * 2;
    if (inUse.has(port)) continue;
    const socket = createSocket({ type: host.includes(':') ? 'udp6' : 'udp4', lookup: literalFirstLookup });
    const bound = await new Promise<boolean>((resolve) => {
      socket.once('error', () => resolve(false));
      socket.bind(port, host, () => resolve(true));
    });
    if (bound) {
      socket.removeAllListeners('error');
      inUse.add(port);
      return { socket, port };
    }
    socket.close();
  }
  throw new Error(`no free RTP port in ${range.min}-${range.max} on ${host}`);
}

/**
 * dgram resolves the destination of every send, and for an address literal Node's default
 * still defers the send to the next tick through dns.lookup: at 50 packets a second per
 * leg that was a tenth of the media thread. Addresses from SDP are almost always literals,
 * so answer those at once; a name still goes to the resolver.
 */
function literalFirstLookup(hostname: string, options: LookupOneOptions | number, callback: (error: NodeJS.ErrnoException | null, address: string, family: number) => void): void {
  const family = isIP(hostname);
  if (family !== 0) {
    callback(null, hostname, family);
    return;
  }
  dnsLookup(hostname, typeof options === 'number' ? { family: options } : options, callback);
}
