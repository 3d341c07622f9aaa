// What an operator configures for SIP (the `sip` section of the carriers file): where we
// listen, the address we advertise, the RTP port range, and the trunks.
import type { G711Codec } from '../rtp/g711.ts';

export interface TrunkSettings {
  name: string;
  /** Where outbound INVITEs go (the carrier's SIP host or an outbound proxy). */
  host: string;
  port: number;
  transport: 'udp' | 'tcp';
  /** Digest credentials for 401/407 challenges, when the trunk authenticates by password. */
  username?: string | undefined;
  password?: string | undefined;
  /** Addresses (CIDR) the carrier sends inbound calls from. */
  inboundSources: string[];
  /** Digest credentials a peer (a PBX, a carrier without fixed addresses) answers our challenge with. */
  inboundAuth?: { username: string; password: string } | undefined;
  codecs: G711Codec[];
  transfer: 'refer' | 'bridge';
}

export interface SipSettings {
  /** Address the SIP and RTP sockets bind to. */
  bindHost: string;
  udpPort: number | undefined;
  tcpPort: number | undefined;
  /** Host or IP put in Via, Contact and SDP: what the trunk can reach (the public address behind NAT). */
  publicHost: string;
  rtpPortMin: number;
  rtpPortMax: number;
  trunks: TrunkSettings[];
  /** How long a node's heartbeat may be stale before a survivor ends its calls. */
  nodeLeaseSeconds: number;
}
