// The server side of SIP digest (RFC 3261 22.4, RFC 2617): challenges with a nonce and checks
// the answer, for inbound INVITEs from trunks (inbound-admission.ts) and REGISTERs from
// workers' softphones (registrar.ts). Nonces are stateless (a timestamp signed with a
// per-process key), so a flood of requests costs no memory; a nonce older than NONCE_TTL_MS
// is answered with a fresh challenge marked stale, which clients answer without asking the user.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const NONCE_TTL_MS = 5 * 60_000;

export type NonceCheck = 'fresh' | 'stale' | 'foreign';

export class DigestNonces {
  private readonly key = randomBytes(32);

  /** A WWW-Authenticate value for `realm` (qop=auth, MD5). */
  challenge(realm: string, stale = false): string {
    const issued = Date.now().toString(36);
    const nonce = `${issued}.${this.sign(issued)}`;
    return `Digest realm="${realm}", nonce="${nonce}", qop="auth", algorithm=MD5${stale ? ', stale=true' : ''}`;
  }

  check(nonce: string): NonceCheck {
    const [issued, signature] = nonce.split('.');
    if (!issued || !signature || this.sign(issued) !== signature) return 'foreign';
    return Date.now() - parseInt(issued, 36) > NONCE_TTL_MS ? 'stale' : 'fresh';
  }

  private sign(text: string): string {
    return createHmac('sha256', this.key).update(text).digest('base64url').slice(0, 22);
  }
}

/** The parameters of an Authorization header's Digest answer (lower-case names). */
export function parseAuthorization(header: string): Record<string, string> {
  const params: Record<string, string> = {};
  const body = /^\s*Digest\s+(.*)$/is.exec(header)?.[1] ?? '';
  const re = /([a-zA-Z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))/g;
  for (let m = re.exec(body); m; m = re.exec(body)) params[(m[1] as string).toLowerCase()] = m[2] ?? m[3] ?? '';
  return params;
}

export function md5(text: string): string {
  return createHash('md5').update(text).digest('hex');
}

/** Whether `p.response` is the right answer for a client that knows `ha1` = MD5(user:realm:password). */
export function digestAnswerMatches(p: Record<string, string>, ha1: string, method: string): boolean {
  if (!p.response) return false;
  const ha2 = md5(`${method}:${p.uri ?? ''}`);
  const expected = Buffer.from(p.qop === 'auth' ? md5(`${ha1}:${p.nonce}:${p.nc ?? ''}:${p.cnonce ?? ''}:auth:${ha2}`) : md5(`${ha1}:${p.nonce}:${ha2}`));
  const given = Buffer.from(p.response.toLowerCase());
  return expected.length === given.length && timingSafeEqual(expected, given);
}
