// Scrapes GET /metrics like Prometheus would and reads samples out of the text format, so
// tests assert on what a real scraper sees.
export interface Scrape {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

export async function scrape(url: string, token?: string): Promise<Scrape> {
  const res = await fetch(`${url}/metrics`, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });
  const text = await res.text();
  const body = /json/.test(res.headers.get('content-type') ?? '') ? JSON.parse(text) : undefined;
  return { status: res.status, headers: res.headers, text, body };
}

/** `name{a="x",b="y"} 12` -> the labels of one sample line. */
function labelsOf(part: string): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const m of part.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[m[1]!] = m[2]!;
  return labels;
}

/**
 * The sum of the samples named `name` whose labels include `labels` (0 when there is none):
 * `value(text, 'switchboard_calls_total', { status: 'completed' })` adds up every mode and direction.
 */
export function value(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^(\w+)(\{[^}]*\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = labelsOf(m[2] ?? '');
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) sum += Number(m[3]);
  }
  return sum;
}

/** Whether a metric family is declared (its `# TYPE` line is there). */
export function declares(text: string, name: string): boolean {
  return text.includes(`# TYPE ${name} `);
}
