// Structured views of the SIP headers the user agent acts on: name-addr (From, To,
// Contact, Route, Record-Route, Refer-To), SIP URIs, Via and CSeq.

export interface SipUri {
  scheme: 'sip' | 'sips';
  user: string | undefined;
  host: string;
  port: number | undefined;
  params: Record<string, string | null>;
}

export interface NameAddr {
  display: string | undefined;
  uri: string;
  params: Record<string, string | null>;
}

function parseParams(text: string): Record<string, string | null> {
  const params: Record<string, string | null> = {};
  for (const part of text.split(';')) {
    const trimmed = part.trim();
    if (!trimmed) continue;
    const eq = trimmed.indexOf('=');
    if (eq < 0) params[trimmed.toLowerCase()] = null;
    else params[trimmed.slice(0, eq).trim().toLowerCase()] = trimmed.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
  }
  return params;
}

export function formatParams(params: Record<string, string | null | undefined>): string {
  return Object.entries(params)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => (v === null ? `;${k}` : `;${k}=${v}`))
    .join('');
}

export function parseUri(text: string): SipUri {
  const match = /^(sips?):(?:([^@]*)@)?(\[[^\]]+\]|[^:;?]+)(?::(\d+))?([^?]*)/i.exec(text.trim());
  if (!match) throw new Error(`not a SIP URI: ${JSON.stringify(text)}`);
  return {
    scheme: (match[1] as string).toLowerCase() as 'sip' | 'sips',
    user: match[2] === undefined ? undefined : decodeURIComponent(match[2]),
    host: (match[3] as string).replace(/^\[|\]$/g, ''),
    port: match[4] === undefined ? undefined : Number(match[4]),
    params: parseParams(match[5] ?? ''),
  };
}

export function formatUri(uri: SipUri): string {
  const host = uri.host.includes(':') ? `[${uri.host}]` : uri.host;
  const user = uri.user === undefined ? '' : `${encodeURIComponent(uri.user).replace(/%2B/g, '+')}@`;
  return `${uri.scheme}:${user}${host}${uri.port === undefined ? '' : `:${uri.port}`}${formatParams(uri.params)}`;
}

export function parseNameAddr(text: string): NameAddr {
  const value = text.trim();
  const open = value.indexOf('<');
  if (open >= 0) {
    const close = value.indexOf('>', open);
    if (close < 0) throw new Error(`unterminated <...> in ${JSON.stringify(text)}`);
    const display = value.slice(0, open).trim().replace(/^"(.*)"$/, '$1');
    return { display: display || undefined, uri: value.slice(open + 1, close), params: parseParams(value.slice(close + 1)) };
  }
  // addr-spec form: parameters after the URI belong to the header, not the URI.
  const semi = value.indexOf(';');
  return semi < 0
    ? { display: undefined, uri: value, params: {} }
    : { display: undefined, uri: value.slice(0, semi), params: parseParams(value.slice(semi)) };
}

export function formatNameAddr(addr: NameAddr): string {
  const display = addr.display ? `"${addr.display.replace(/"/g, '')}" ` : '';
  return `${display}<${addr.uri}>${formatParams(addr.params)}`;
}

export interface Via {
  transport: string;
  host: string;
  port: number | undefined;
  params: Record<string, string | null>;
}

export function parseVia(text: string): Via {
  const match = /^SIP\s*\/\s*2\.0\s*\/\s*([A-Za-z]+)\s+(\[[^\]]+\]|[^:;\s]+)(?::(\d+))?(.*)$/i.exec(text.trim());
  if (!match) throw new Error(`malformed Via: ${JSON.stringify(text)}`);
  return {
    transport: (match[1] as string).toUpperCase(),
    host: (match[2] as string).replace(/^\[|\]$/g, ''),
    port: match[3] === undefined ? undefined : Number(match[3]),
    params: parseParams(match[4] ?? ''),
  };
}

export function parseCSeq(text: string): { seq: number; method: string } {
  const match = /^(\d+)\s+([A-Za-z]+)$/.exec(text.trim());
  if (!match) throw new Error(`malformed CSeq: ${JSON.stringify(text)}`);
  return { seq: Number(match[1]), method: (match[2] as string).toUpperCase() };
}

/** The `Reason: SIP ;cause=486 ;text="..."` / `Q.850 ;cause=17` header, if any. */
export function parseReason(text: string | undefined): { protocol: string; cause: number | undefined; text: string | undefined } | undefined {
  if (!text) return undefined;
  const [protocol, ...rest] = text.split(';');
  const params = parseParams(rest.join(';'));
  return { protocol: (protocol ?? '').trim().toUpperCase(), cause: params.cause ? Number(params.cause) : undefined, text: params.text ?? undefined };
}

export function randomToken(bytes = 8): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, '0')).join('');
}
