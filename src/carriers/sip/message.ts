// SIP messages (RFC 3261 section 7): parsing from bytes and serialising back. Header names
// are kept in their canonical long form (compact forms such as `v`, `i`, `f` are expanded
// on input), values stay as text; the helpers in uri.ts and headers.ts read the structured
// ones. Over TCP a message ends where its Content-Length says (see `frameLength`).

export interface SipRequest {
  kind: 'request';
  method: string;
  uri: string;
  headers: SipHeaders;
  body: string;
}

export interface SipResponse {
  kind: 'response';
  status: number;
  reason: string;
  headers: SipHeaders;
  body: string;
  /**
   * Made up here, never received: the transaction timed out, the transport failed, or we
   * canceled before anything answered (`reason` says how).
   */
  local?: 'timeout' | 'transport' | 'canceled';
}

export type SipMessage = SipRequest | SipResponse;

const COMPACT: Record<string, string> = {
  i: 'call-id', m: 'contact', e: 'content-encoding', l: 'content-length', c: 'content-type',
  f: 'from', s: 'subject', k: 'supported', t: 'to', v: 'via', r: 'refer-to', b: 'referred-by', o: 'event', u: 'allow-events',
};

const CANONICAL: Record<string, string> = {
  'call-id': 'Call-ID', cseq: 'CSeq', 'www-authenticate': 'WWW-Authenticate', 'record-route': 'Record-Route',
  'content-length': 'Content-Length', 'content-type': 'Content-Type', 'max-forwards': 'Max-Forwards', 'rack': 'RAck', 'rseq': 'RSeq',
};

/** Headers may repeat (Via, Route, Record-Route); comma-joined lists are split where safe. */
const LIST_HEADERS = new Set(['via', 'route', 'record-route', 'contact', 'allow', 'supported', 'require']);

function canonical(name: string): string {
  return CANONICAL[name] ?? name.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase());
}

/** Ordered, case-insensitive, multi-valued headers. */
export class SipHeaders {
  private readonly entries: [string, string][] = [];

  static from(init: Record<string, string | string[] | number | undefined>): SipHeaders {
    const headers = new SipHeaders();
    for (const [name, value] of Object.entries(init)) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) headers.append(name, String(v));
    }
    return headers;
  }

  get(name: string): string | undefined {
    const key = name.toLowerCase();
    return this.entries.find(([k]) => k === key)?.[1];
  }

  getAll(name: string): string[] {
    const key = name.toLowerCase();
    return this.entries.filter(([k]) => k === key).map(([, v]) => v);
  }

  has(name: string): boolean {
    return this.get(name) !== undefined;
  }

  append(name: string, value: string): this {
    const key = COMPACT[name.toLowerCase()] ?? name.toLowerCase();
    if (LIST_HEADERS.has(key)) {
      for (const part of splitList(value)) this.entries.push([key, part]);
    } else {
      this.entries.push([key, value.trim()]);
    }
    return this;
  }

  set(name: string, value: string): this {
    this.delete(name);
    return this.append(name, value);
  }

  /** Puts `value` before the existing values of `name` (a proxy-style Via push). */
  prepend(name: string, value: string): this {
    const key = name.toLowerCase();
    const index = this.entries.findIndex(([k]) => k === key);
    this.entries.splice(index < 0 ? 0 : index, 0, [key, value]);
    return this;
  }

  delete(name: string): this {
    const key = name.toLowerCase();
    for (let i = this.entries.length - 1; i >= 0; i--) if ((this.entries[i] as [string, string])[0] === key) this.entries.splice(i, 1);
    return this;
  }

  clone(): SipHeaders {
    const copy = new SipHeaders();
    for (const [k, v] of this.entries) copy.entries.push([k, v]);
    return copy;
  }

  toString(): string {
    return this.entries.map(([k, v]) => `${canonical(k)}: ${v}\r\n`).join('');
  }
}

/** Splits on commas that are outside quotes and angle brackets. */
export function splitList(value: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (c === '"' && value[i - 1] !== '\\') quoted = !quoted;
    else if (!quoted && c === '<') depth++;
    else if (!quoted && c === '>') depth--;
    else if (!quoted && depth === 0 && c === ',') {
      parts.push(value.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(value.slice(start).trim());
  return parts.filter((p) => p.length > 0);
}

export class SipParseError extends Error {}

export function parseSipMessage(data: Buffer | string): SipMessage {
  const text = typeof data === 'string' ? data : data.toString('utf8');
  const headerEnd = text.indexOf('\r\n\r\n');
  if (headerEnd < 0) throw new SipParseError('no blank line after the headers');
  // Unfold continuation lines (RFC 3261 7.3.1) before splitting.
  const lines = text.slice(0, headerEnd).replace(/\r\n[ \t]+/g, ' ').split('\r\n');
  const startLine = lines.shift() ?? '';
  const headers = new SipHeaders();
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new SipParseError(`malformed header line: ${JSON.stringify(line.slice(0, 80))}`);
    headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  let body = text.slice(headerEnd + 4);
  const length = headers.get('content-length');
  if (length !== undefined) {
    const bytes = Number(length);
    if (!Number.isInteger(bytes) || bytes < 0) throw new SipParseError(`bad Content-Length: ${length}`);
    body = Buffer.from(body, 'utf8').subarray(0, bytes).toString('utf8');
  }
  const response = /^SIP\/2\.0 (\d{3}) ?(.*)$/.exec(startLine);
  if (response) return { kind: 'response', status: Number(response[1]), reason: response[2] ?? '', headers, body };
  const request = /^([A-Z][A-Za-z]*) (\S+) SIP\/2\.0$/.exec(startLine);
  if (request) return { kind: 'request', method: request[1] as string, uri: request[2] as string, headers, body };
  throw new SipParseError(`not a SIP start line: ${JSON.stringify(startLine.slice(0, 80))}`);
}

export function serializeSipMessage(message: SipMessage): Buffer {
  const startLine = message.kind === 'request' ? `${message.method} ${message.uri} SIP/2.0` : `SIP/2.0 ${message.status} ${message.reason}`;
  const body = Buffer.from(message.body, 'utf8');
  const headers = message.headers.clone().set('Content-Length', String(body.length));
  return Buffer.concat([Buffer.from(`${startLine}\r\n${headers.toString()}\r\n`, 'utf8'), body]);
}

/**
 * For stream transports: the byte length of the first complete message in `buffer`, or
 * undefined when more bytes are needed. Leading CRLF keep-alives count as a 2-byte message.
 */
export function frameLength(buffer: Buffer): number | undefined {
  if (buffer.length >= 2 && buffer[0] === 0x0d && buffer[1] === 0x0a) return 2;
  const end = buffer.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const head = buffer.subarray(0, end).toString('utf8');
  const match = /\r\n(?:content-length|l)[ \t]*:[ \t]*(\d+)/i.exec(head);
  const total = end + 4 + (match ? Number(match[1]) : 0);
  return buffer.length >= total ? total : undefined;
}
