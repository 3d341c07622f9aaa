// Where a trunk is reached: the Request-URI for a number at the trunk, the network hop, and the
// INVITE that places a call over it (numbers in the trunk's caller-id form, its credentials).
// TLS is written `sip:...;transport=tls` (what most carriers document) or, when the trunk
// asks for TLS on every hop, `sips:...`.
import { formatUri } from './headers.ts';
import type { Peer, TransportName } from './transport.ts';
import type { TrunkSettings } from './settings.ts';
import type { InviteOptions } from './user-agent.ts';
import { callerIdHeaders, toTrunkNumber } from './caller-id.ts';

export function trunkUri(trunk: TrunkSettings, user?: string): string {
  const params: Record<string, string> = trunk.transport === 'udp' || trunk.sips ? {} : { transport: trunk.transport };
  return formatUri({ scheme: trunk.sips ? 'sips' : 'sip', user, host: trunk.host, port: trunk.port, params });
}

export function trunkPeer(trunk: TrunkSettings): Peer {
  return { transport: trunk.transport.toUpperCase() as TransportName, address: trunk.host, port: trunk.port, serverName: trunk.tlsServerName };
}

/** The INVITE for a call from `from` to `to` (both E.164) over `trunk`, offering `sdp`. */
export function trunkInvite(trunk: TrunkSettings, publicHost: string, from: string, to: string, sdp: string): InviteOptions {
  const uri = trunkUri(trunk, toTrunkNumber(trunk.callerId, to));
  return {
    uri,
    peer: trunkPeer(trunk),
    from: { user: toTrunkNumber(trunk.callerId, from), host: publicHost },
    to: uri,
    sdp,
    credentials: trunk.username && trunk.password ? { username: trunk.username, password: trunk.password } : undefined,
    headers: callerIdHeaders(trunk.callerId, from, publicHost),
  };
}

