// Where a trunk is reached: the Request-URI for a number at the trunk, and the network hop.
// TLS is written `sip:...;transport=tls` (what most carriers document) or, when the trunk
// asks for TLS on every hop, `sips:...`.
import { formatUri } from './headers.ts';
import type { Peer, TransportName } from './transport.ts';
import type { TrunkSettings } from './settings.ts';

export function trunkUri(trunk: TrunkSettings, user?: string): string {
  const params: Record<string, string> = trunk.transport === 'udp' || trunk.sips ? {} : { transport: trunk.transport };
  return formatUri({ scheme: trunk.sips ? 'sips' : 'sip', user, host: trunk.host, port: trunk.port, params });
}

export function trunkPeer(trunk: TrunkSettings): Peer {
  return { transport: trunk.transport.toUpperCase() as TransportName, address: trunk.host, port: trunk.port, serverName: trunk.tlsServerName };
}
