// A 405 that names the endpoint that does the job: people reach for DELETE to revoke a key or
// end a call; the answer says what to call instead.
const HINTS: Array<{ method: string; path: RegExp; hint: (m: RegExpMatchArray) => string }> = [
  { method: 'DELETE', path: /^\/v1\/keys\/([^/]+)$/, hint: (m) => `To disable a key, use POST /v1/keys/${m[1]}/revoke (or /rotate to replace it).` },
  { method: 'DELETE', path: /^\/v1\/calls\/([^/]+)$/, hint: (m) => `To end a call, use POST /v1/calls/${m[1]}/hangup.` },
  { method: 'PATCH', path: /^\/v1\/calls\/([^/]+)$/, hint: (m) => `To change what a call in progress does, use POST /v1/calls/${m[1]}/flow; to move it to another number, POST /v1/calls/${m[1]}/transfer.` },
  { method: 'POST', path: /^\/v1\/recordings$/, hint: () => 'To record a call, use POST /v1/calls/{id}/recordings; GET /v1/calls/{id}/recordings lists the recordings of a call.' },
  { method: 'POST', path: /^\/v1\/recordings\/([^/]+)$/, hint: (m) => `To control a recording, use POST /v1/recordings/${m[1]}/start, /pause or /stop.` },
  // A call's recordings are a list: each one is deleted, stopped or changed by its own rec_ id.
  { method: 'DELETE', path: /^\/v1\/calls\/([^/]+)\/recordings$/, hint: (m) => `GET /v1/calls/${m[1]}/recordings lists the call's recordings; delete each with DELETE /v1/recordings/{id} (rec_...).` },
  { method: 'PATCH', path: /^\/v1\/calls\/([^/]+)\/recordings$/, hint: (m) => `GET /v1/calls/${m[1]}/recordings lists the call's recordings; pause, resume or stop each with POST /v1/recordings/{id}/pause, /start or /stop.` },
  { method: 'DELETE', path: /^\/v1\/messages\/([^/]+)$/, hint: (m) => `To stop a queued message, use POST /v1/messages/${m[1]}/cancel; a message its carrier took cannot be taken back.` },
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
