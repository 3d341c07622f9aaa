// What an operator configures for SIP (the `sip` section of the carriers file): where we
// listen, the address we advertise, the RTP port range, and the trunks.
import type { G711Codec } from '../rtp/g711.ts';
import type { CallerIdRules } from './caller-id.ts';

export interface TrunkSettings {
  name: string;
  /** Where outbound INVITEs go (the carrier's SIP host or an outbound proxy). */
  host: string;
  port: number;
  transport: 'udp' | 'tcp' | 'tls';
  /** Address the trunk with `sips:` URIs (TLS on every hop) rather than `sip:...;transport=tls`. */
  sips: boolean;
  /** The name the trunk's TLS certificate carries, when `host` is an IP address. */
  tlsServerName?: string | undefined;
  /** Digest credentials for 401/407 challenges, when the trunk authenticates by password. */
  username?: string | undefined;
  password?: string | undefined;
  /** Addresses (CIDR) the carrier sends inbound calls from. */
  inboundSources: string[];
  /** Digest credentials a peer (a PBX, a carrier without fixed addresses) answers our challenge with. */
  inboundAuth?: { username: string; password: string } | undefined;
  codecs: G711Codec[];
  transfer: 'refer' | 'bridge';
  /** How numbers are written to and read from the trunk, and whether it gets P-Asserted-Identity (caller-id.ts). */
  callerId: CallerIdRules;
  /** REGISTER with the trunk (username and password) so its registrar sends us calls (registration.ts). */
  register?: { expiresSeconds: number } | undefined;
}

export interface SipSettings {
  /** Address the SIP and RTP sockets bind to. */
  bindHost: string;
  udpPort: number | undefined;
  tcpPort: number | undefined;
  tlsPort: number | undefined;
  tls: SipTlsSettings;
  /** Host or IP put in Via, Contact and SDP: what the trunk can reach (the public address behind NAT). */
  publicHost: string;
  rtpPortMin: number;
  rtpPortMax: number;
  /** Media worker threads (undefined: one per CPU core). */
  rtpWorkers: number | undefined;
  trunks: TrunkSettings[];
  /** How long a node's heartbeat may be stale before a survivor ends its calls. */
  nodeLeaseSeconds: number;
  /** The registrar for workers' softphones (registrar.ts). */
  registrar: RegistrarSettings;
}

export interface RegistrarSettings {
  /** Shorter asked-for registrations get 423 Interval Too Brief; longer ones are cut to maxExpires. */
  minExpires: number;
  maxExpires: number;
  /** When a REGISTER names no expiry. */
  defaultExpires: number;
  /** `auto`: to a private Contact behind NAT, send to the REGISTER's source; `always`: always to the source. */
  nat: 'auto' | 'always';
}

/** Our TLS certificate and key (paths), and how peers' certificates are judged. */
export interface SipTlsSettings {
  certFile?: string | undefined;
  keyFile?: string | undefined;
  /** PEM bundle of the CAs that may sign a peer's certificate; without it, the system's CAs. */
  caFile?: string | undefined;
  /** Refuse a peer whose certificate does not verify. On unless the operator turns it off. */
  verify: boolean;
}
