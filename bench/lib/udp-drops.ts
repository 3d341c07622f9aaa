// Where UDP datagrams were dropped by the kernel, per socket: /proc/net/udp's `drops` column
// counts datagrams a socket's receive buffer had no room for (its reader did not drain it in
// time). A bench that loses RTP can then say whose socket overflowed, ours or the peer's.
// A socket's count disappears with the socket, so a sampler keeps the highest count seen per
// socket (by inode) and is read after the sockets have closed.
import { readFileSync } from 'node:fs';

interface UdpSocketRow {
  inode: string;
  localPort: number;
  drops: number;
}

function readUdpTable(): UdpSocketRow[] {
  const rows: UdpSocketRow[] = [];
  for (const file of ['/proc/net/udp', '/proc/net/udp6']) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 13) continue;
      const localPort = parseInt(fields[1]!.split(':')[1]!, 16);
      rows.push({ inode: fields[9]!, localPort, drops: Number(fields[12]) });
    }
  }
  return rows;
}

export class UdpDropSampler {
  private readonly baseline = new Map<string, number>();
  private readonly highest = new Map<string, number>();
  private started = false;
  private timer: NodeJS.Timeout | undefined;

  /** @param owns which local ports to count */
  constructor(private readonly owns: (port: number) => boolean, private readonly everyMs = 250) {}

  start(): void {
    this.sample();
    this.timer = setInterval(() => this.sample(), this.everyMs);
  }

  /** Stops sampling; returns the datagrams dropped on the counted sockets since start. */
  stop(): number {
    if (this.timer) clearInterval(this.timer);
    this.sample();
    let total = 0;
    for (const [inode, drops] of this.highest) total += drops - (this.baseline.get(inode) ?? 0);
    return total;
  }

  private sample(): void {
    for (const row of readUdpTable()) {
      if (!this.owns(row.localPort)) continue;
      if (!this.started) this.baseline.set(row.inode, row.drops);
      if (row.drops > (this.highest.get(row.inode) ?? -1)) this.highest.set(row.inode, row.drops);
    }
    this.started = true;
  }
}
