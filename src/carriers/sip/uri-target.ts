// A call whose `to` is a SIP URI (a worker reached at sip:alice@pbx.example.com) goes over no
// trunk: the INVITE's Request-URI is that URI and the network hop is its host, port and
// transport (uriPeer, as for a softphone's contact). The host is resolved here, once, and the
// address judged is the address dialled: a name that resolves to a private or loopback
// address is refused unless the operator allows private targets (the webhook URL policy's
// switch, SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE), since such a URI would let an account ring
// machines inside the operator's network. The worker API refuses such URIs when they are
// saved; this check catches DNS that changed since.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { formatUri, parseUri } from './headers.ts';
import { directTrunk, isPrivateAddress, uriPeer } from './softphone-target.ts';
import type { TrunkSettings } from './settings.ts';
import type { InviteOptions } from './user-agent.ts';

/** Is this call's `to` a SIP URI dialled directly (sip: or sips:)? */
export function isSipUriTarget(to: string): boolean {
  return /^sips?:/i.test(to);
}

/** The pseudo-trunk a leg to a SIP URI runs on (named after the URI's host, for logs). */
export function sipUriTrunk(to: string): TrunkSettings {
  return directTrunk(`uri:${parseUri(to).host}`);
}

/** Why a SIP URI is not dialled: the SIP status and reason the call fails with. */
export interface Unreachable {
  status: number;
  reason: string;
}

/** The INVITE ringing SIP URI `to` from `from` (E.164, shown as the caller), or why it cannot be rung. */
export async function sipUriInvite(to: string, publicHost: string, from: string, sdp: string, allowPrivate: boolean): Promise<InviteOptions | Unreachable> {
  const uri = parseUri(to);
  let address = uri.host;
  if (isIP(address) === 0) {
    try {
      address = (await lookup(uri.host)).address;
    } catch {
      return { status: 404, reason: `Not Found (${uri.host} does not resolve)` };
    }
  }
  if (isPrivateAddress(address) && !allowPrivate) return { status: 403, reason: `Forbidden (${uri.host} is not a public address)` };
  const peer = uriPeer(uri, 'UDP');
  return {
    uri: formatUri(uri),
    // A TLS peer's certificate names the URI's host, not the address it resolved to.
    peer: { ...peer, address, serverName: peer.transport === 'TLS' && isIP(uri.host) === 0 ? uri.host : undefined },
    from: { user: from, host: publicHost },
    to: formatUri({ ...uri, params: {} }),
    sdp,
  };
}
