// A UDP relay that damages traffic the way real networks do: it drops packets, swaps
// neighbours and delays them by a random jitter. Deterministic (seeded) so a failure
// replays. Packets from the target go back unharmed to whoever last sent through it.
import { createSocket, type Socket } from 'node:dgram';

export interface Impairment {
  /** Probability that a packet is dropped. */
  loss: number;
  /** Probability that a packet is held back and sent after the next one. */
  reorder: number;
  /** Extra delay drawn uniformly from [0, jitterMs]. */
  jitterMs: number;
  seed: number;
}

export interface UdpShim {
  port: number;
  stats: { forwarded: number; dropped: number; reordered: number };
  close(): Promise<void>;
}

function seeded(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x100000000;
  };
}

export async function startUdpShim(target: { address: string; port: number }, impairment: Impairment): Promise<UdpShim> {
  const socket: Socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const random = seeded(impairment.seed);
  const stats = { forwarded: 0, dropped: 0, reordered: 0 };
  let client: { address: string; port: number } | undefined;
  let held: Buffer | undefined;
  const timers = new Set<NodeJS.Timeout>();

  const later = (datagram: Buffer) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      stats.forwarded++;
      socket.send(datagram, target.port, target.address);
    }, random() * impairment.jitterMs);
    timers.add(timer);
  };

  socket.on('message', (datagram, from) => {
    if (from.address === target.address && from.port === target.port) {
      if (client) socket.send(datagram, client.port, client.address);
      return;
    }
    client = { address: from.address, port: from.port };
    if (random() < impairment.loss) {
      stats.dropped++;
      return;
    }
    if (!held && random() < impairment.reorder) {
      held = datagram;
      stats.reordered++;
      return;
    }
    later(datagram);
    if (held) {
      later(held);
      held = undefined;
    }
  });

  return {
    port: (socket.address() as { port: number }).port,
    stats,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      await new Promise<void>((resolve) => socket.close(() => resolve()));
    },
  };
}
