// A 405 that names the endpoint that does the job: people reach for DELETE to revoke a key or
// end a call; the answer says what to call instead.
const HINTS: Array<{ method: string; path: RegExp; hint: (m: RegExpMatchArray) => string }> = [
  { method: 'DELETE', path: /^\/v1\/keys\/([^/]+)$/, hint: (m) => `To disable a key, use POST /v1/keys/${m[1]}/revoke (or /rotate to replace it).` },
  { method: 'DELETE', path: /^\/v1\/calls\/([^/]+)$/, hint: (m) => `To end a call, use POST /v1/calls/${m[1]}/hangup.` },
  { method: 'POST', path: /^\/v1\/recordings$/, hint: () => 'To record a call, use POST /v1/calls/{id}/recordings.' },
  { method: 'DELETE', path: /^\/v1\/numbers\/ports\/([^/]+)$/, hint: (m) => `To stop a port, use POST /v1/numbers/ports/${m[1]}/cancel.` },
];

/** A sentence pointing to the right endpoint, or '' when the Allow list says enough. */
export function methodHint(method: string, path: string, allowed: string[]): string {
  for (const h of HINTS) {
    const m = method === h.method ? path.match(h.path) : null;
    if (m) return ` ${h.hint(m)}`;
  }
  if (method === 'PUT' && allowed.includes('PATCH')) return ' To change some fields, use PATCH with just those fields.';
  return '';
}
