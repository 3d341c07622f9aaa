// Who may start an inbound call: an INVITE is admitted when it comes from one of a trunk's
// `inbound_sources` (CIDRs, IPv4 or IPv6), from the registrar a trunk holds a binding with
// (`register:`), or when it answers our digest challenge with a trunk's `inbound_auth`
// credentials. Anything else is refused before any database work:
// 403 when no trunk could ever admit it, 401 with a challenge when a trunk takes passwords.
// Nonces are stateless (a timestamp signed with a per-process key), so a flood of INVITEs
// costs no memory, and a nonce older than NONCE_TTL_MS is answered with a fresh, stale one.
import { BlockList, isIP } from 'node:net';
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { SipRequest } from './message.ts';
import type { TrunkSettings } from './settings.ts';

const NONCE_TTL_MS = 5 * 60_000;
export const INBOUND_REALM = 'switchboard';

export type Admission =
  | { kind: 'admitted'; trunk: TrunkSettings; by: 'source' | 'registrar' | 'digest' }
  | { kind: 'challenge'; header: string }
  | { kind: 'forbidden'; reason: string };

export class InboundAdmission {
  private readonly sources: { trunk: TrunkSettings; list: BlockList }[];
  private readonly key = randomBytes(32);

  /** `registeredAt(address)`: the trunk registered with a registrar at that address, if any (see registration.ts). */
  constructor(
    private readonly trunks: readonly TrunkSettings[],
    private readonly registeredAt: (address: string) => TrunkSettings | undefined = () => undefined,
  ) {
    this.sources = trunks.filter((t) => t.inboundSources.length > 0).map((trunk) => ({ trunk, list: blockListOf(trunk.inboundSources) }));
  }

  admit(request: SipRequest, address: string): Admission {
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    const bySource = this.sources.find((s) => s.list.check(address, family));
    if (bySource) return { kind: 'admitted', trunk: bySource.trunk, by: 'source' };
    const byRegistration = this.registeredAt(address);
    if (byRegistration) return { kind: 'admitted', trunk: byRegistration, by: 'registrar' };
    const withPasswords = this.trunks.filter((t) => t.inboundAuth);
    if (withPasswords.length === 0) return { kind: 'forbidden', reason: `source ${address} is not in any trunk's inbound_sources` };
    const authorization = request.headers.get('authorization');
    if (!authorization) return { kind: 'challenge', header: this.challenge(false) };
    const params = parseAuthorization(authorization);
    const trunk = withPasswords.find((t) => t.inboundAuth?.username === params.username);
    if (!trunk || !params.nonce || !params.response) return { kind: 'forbidden', reason: 'unknown inbound user name' };
    const age = this.nonceAge(params.nonce);
    if (age === null) return { kind: 'forbidden', reason: 'a nonce we did not issue' };
    if (age > NONCE_TTL_MS) return { kind: 'challenge', header: this.challenge(true) };
    const expected = expectedResponse(params, trunk.inboundAuth!.password, request.method);
    const given = Buffer.from(params.response.toLowerCase());
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return { kind: 'forbidden', reason: 'wrong digest credentials' };
    return { kind: 'admitted', trunk, by: 'digest' };
  }

  private challenge(stale: boolean): string {
    const issued = Date.now().toString(36);
    const nonce = `${issued}.${this.sign(issued)}`;
    return `Digest realm="${INBOUND_REALM}", nonce="${nonce}", qop="auth", algorithm=MD5${stale ? ', stale=true' : ''}`;
  }

  private nonceAge(nonce: string): number | null {
    const [issued, signature] = nonce.split('.');
    if (!issued || !signature || this.sign(issued) !== signature) return null;
    return Date.now() - parseInt(issued, 36);
  }

  private sign(text: string): string {
    return createHmac('sha256', this.key).update(text).digest('base64url').slice(0, 22);
  }
}

function blockListOf(cidrs: readonly string[]): BlockList {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [address, bits] = cidr.split('/');
    const family = isIP(address ?? '') === 6 ? 'ipv6' : 'ipv4';
    // The carriers file checked the shape; an address the OS cannot parse admits nothing.
    try {
      if (bits === undefined) list.addAddress(address as string, family);
      else list.addSubnet(address as string, Number(bits), family);
    } catch {
      continue;
    }
  }
  return list;
}

function parseAuthorization(header: string): Record<string, string> {
  const params: Record<string, string> = {};
  const body = /^\s*Digest\s+(.*)$/is.exec(header)?.[1] ?? '';
  const re = /([a-zA-Z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))/g;
  for (let m = re.exec(body); m; m = re.exec(body)) params[(m[1] as string).toLowerCase()] = m[2] ?? m[3] ?? '';
  return params;
}

function md5(text: string): string {
  return createHash('md5').update(text).digest('hex');
}

function expectedResponse(p: Record<string, string>, password: string, method: string): Buffer {
  const ha1 = md5(`${p.username}:${INBOUND_REALM}:${password}`);
  const ha2 = md5(`${method}:${p.uri ?? ''}`);
  const response = p.qop === 'auth' ? md5(`${ha1}:${p.nonce}:${p.nc ?? ''}:${p.cnonce ?? ''}:auth:${ha2}`) : md5(`${ha1}:${p.nonce}:${ha2}`);
  return Buffer.from(response);
}
