// Who may start an inbound call: an INVITE is admitted when it comes from one of a trunk's
// `inbound_sources` (CIDRs, IPv4 or IPv6), from the registrar a trunk holds a binding with
// (`register:`), or when it answers our digest challenge with a trunk's `inbound_auth`
// credentials. Anything else is refused before any database work:
// 403 when no trunk could ever admit it, 401 with a challenge when a trunk takes passwords.
// Nonces and the digest check are digest-server.ts's.
import { BlockList, isIP } from 'node:net';
import type { SipRequest } from './message.ts';
import type { TrunkSettings } from './settings.ts';
import { DigestNonces, digestAnswerMatches, md5, parseAuthorization } from './digest-server.ts';

export const INBOUND_REALM = 'switchboard';

export type Admission =
  | { kind: 'admitted'; trunk: TrunkSettings; by: 'source' | 'registrar' | 'digest' }
  | { kind: 'challenge'; header: string }
  | { kind: 'forbidden'; reason: string };

export class InboundAdmission {
  private readonly sources: { trunk: TrunkSettings; list: BlockList }[];
  private readonly nonces = new DigestNonces();

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
    const nonce = this.nonces.check(params.nonce);
    if (nonce === 'foreign') return { kind: 'forbidden', reason: 'a nonce we did not issue' };
    if (nonce === 'stale') return { kind: 'challenge', header: this.challenge(true) };
    const ha1 = md5(`${params.username}:${INBOUND_REALM}:${trunk.inboundAuth!.password}`);
    if (!digestAnswerMatches(params, ha1, request.method)) return { kind: 'forbidden', reason: 'wrong digest credentials' };
    return { kind: 'admitted', trunk, by: 'digest' };
  }

  private challenge(stale: boolean): string {
    return this.nonces.challenge(INBOUND_REALM, stale);
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
