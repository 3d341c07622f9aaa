// `switchboard carriers check`: load the file exactly as `serve` does, then probe every
// link that knows how (in parallel, each with its own timeout) and report one row per link.
import { carrierKind } from './registry.ts';
import type { CarriersConfig } from './load.ts';

export interface CheckRow {
  name: string;
  kind: string;
  target: string;
  ok: boolean;
  detail: string;
}

export async function probeLinks(config: CarriersConfig, timeoutMs: number): Promise<CheckRow[]> {
  return Promise.all(config.links.map(async (link): Promise<CheckRow> => {
    const kind = carrierKind(link.kind) ?? carrierKind(link.path.split('[')[0]!);
    const base = { name: link.name, kind: link.kind, target: link.target };
    if (!kind?.probe) return { ...base, ok: true, detail: 'configured (this kind has no probe)' };
    try {
      return { ...base, ...(await kind.probe(link, { timeoutMs })) };
    } catch (err) {
      return { ...base, ok: false, detail: `probe failed: ${(err as Error).message}` };
    }
  }));
}

/** A plain-text table, columns padded to their widest cell. */
export function renderTable(rows: CheckRow[]): string {
  const cells = [['NAME', 'KIND', 'TARGET', 'STATUS', 'DETAIL'], ...rows.map((r) => [r.name, r.kind, r.target, r.ok ? 'ok' : 'FAILED', r.detail])];
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  return cells.map((row) => row.map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')).join('\n') + '\n';
}
