// Where a call to a registered softphone goes: the Request-URI is the binding's Contact, and
// the network hop is the Contact's host and port, unless the softphone is behind NAT. Behind
// NAT a softphone writes its private address in Contact (192.168.1.20) while its REGISTER
// reaches us from the router's public one; only that source address and port lead back to it
// (the router keeps the mapping open while the softphone refreshes). So with `nat: auto` a
// Contact whose host is a private or loopback address other than the REGISTER's source is
// reached at the source, and with `nat: always` every softphone is. Over TCP and TLS the call
// always goes back on the connection the softphone opened (the transport keeps accepted
// connections by their remote address): a softphone rarely listens for connections itself.
import { BlockList, isIP } from 'node:net';
import type { SoftphoneBinding } from '../softphones.ts';
import { E164_RULES } from './caller-id.ts';
import { formatUri, parseUri, type SipUri } from './headers.ts';
import type { RegistrarSettings, TrunkSettings } from './settings.ts';
import type { Peer, TransportName } from './transport.ts';
import type { InviteOptions } from './user-agent.ts';

const PRIVATE = new BlockList();
for (const [net, bits] of [['10.0.0.0', 8], ['172.16.0.0', 12], ['192.168.0.0', 16], ['127.0.0.0', 8], ['100.64.0.0', 10], ['169.254.0.0', 16]] as const) {
  PRIVATE.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [['::1', 128], ['fc00::', 7], ['fe80::', 10]] as const) PRIVATE.addSubnet(net, bits, 'ipv6');

/** A private, shared (CGNAT), link-local or loopback IP: not reachable from elsewhere. */
export function isPrivateAddress(host: string): boolean {
  const family = isIP(host);
  if (family === 0) return false;
  return PRIVATE.check(host, family === 6 ? 'ipv6' : 'ipv4');
}

/** The network hop for a call to `binding`. */
export function softphonePeer(binding: SoftphoneBinding, nat: RegistrarSettings['nat']): Peer {
  const received: Peer = { transport: binding.transport, address: binding.receivedAddress, port: binding.receivedPort, accepted: binding.transport !== 'UDP' };
  if (nat === 'always' || binding.transport !== 'UDP') return received;
  const uri = parseUri(binding.contact);
  if (isPrivateAddress(uri.host) && uri.host !== binding.receivedAddress) return received;
  return uriPeer(uri, binding.transport);
}

/**
 * The network hop a SIP URI names by itself (RFC 3263 without the DNS NAPTR/SRV steps): its
 * host, its port or the transport's default, its `;transport=` or TLS for `sips:`, else
 * `fallback`. Shared by softphone contacts and SIP URIs dialled directly (uri-target.ts).
 */
export function uriPeer(uri: SipUri, fallback: TransportName): Peer {
  const transport = (uri.params.transport?.toUpperCase() ?? (uri.scheme === 'sips' ? 'TLS' : fallback)) as TransportName;
  return { transport, address: uri.host, port: uri.port ?? (transport === 'TLS' ? 5061 : 5060) };
}

/**
 * The pseudo-trunk a leg reached over no trunk runs on (a softphone, a SIP URI): G.711 both
 * laws, E.164 caller ids, bridged transfers.
 */
export function directTrunk(name: string): TrunkSettings {
  return {
    name, host: '', port: 0, transport: 'udp', sips: false, inboundSources: [], codecs: ['PCMU', 'PCMA'],
    transfer: 'bridge', callerId: E164_RULES,
  };
}

/** The pseudo-trunk a softphone's leg runs on. */
export function softphoneTrunk(user: string): TrunkSettings {
  return directTrunk(`softphone:${user}`);
}

/** The INVITE ringing softphone `user` at `binding`, from `from` (E.164, shown as the caller). */
export function softphoneInvite(binding: SoftphoneBinding, user: string, nat: RegistrarSettings['nat'], publicHost: string, from: string, sdp: string): InviteOptions {
  const uri = parseUri(binding.contact);
  return {
    uri: binding.contact,
    peer: softphonePeer(binding, nat),
    from: { user: from, host: publicHost },
    to: formatUri({ scheme: uri.scheme, user, host: publicHost, port: undefined, params: {} }),
    sdp,
  };
}
