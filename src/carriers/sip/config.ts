// The `sip` section of the carriers file: where the SIP user agent listens, the address it
// advertises, the RTP port range, and one entry per trunk. Trunks are voice links: a live
// number is bound to one by name (`switchboard numbers import --trunk NAME`).
import { Type, type Static } from 'typebox';
import { Secret } from '../config/secrets.ts';
import { registerCarrierKind, type CarrierLink } from '../config/registry.ts';
import { LinkName } from '../smpp/config.ts';
import { probeTrunk } from './probe.ts';
import type { SipSettings, TrunkSettings } from './settings.ts';

const Port = (fallback?: number) => Type.Integer({ minimum: 1, maximum: 65535, ...(fallback === undefined ? {} : { default: fallback }) });
const Codec = Type.Union([Type.Literal('PCMU'), Type.Literal('PCMA')]);

export const SipTrunkConfig = Type.Object({
  name: LinkName,
  host: Type.String({ minLength: 1, description: 'The carrier\'s SIP host (or your outbound proxy); INVITEs go here.' }),
  port: Port(5060),
  transport: Type.Union([Type.Literal('udp'), Type.Literal('tcp')], { default: 'udp' }),
  username: Type.Optional(Type.String({ minLength: 1, description: 'Digest user name, when the trunk authenticates calls by password.' })),
  password: Type.Optional(Secret('Digest password.')),
  inbound_sources: Type.Array(Type.String({
    // IPv4 (a.b.c.d/0-32) or IPv6 (hex and colons, /0-128).
    pattern: '^((\\d{1,3}\\.){3}\\d{1,3}(/(3[0-2]|[12]?\\d))?|[0-9a-fA-F:]*:[0-9a-fA-F:.]*(/(12[0-8]|1[01]\\d|[1-9]?\\d))?)$',
  }), { default: [], description: 'Addresses or CIDRs the carrier sends inbound calls from (203.0.113.0/24, 2001:db8::/32).' }),
  inbound_auth: Type.Optional(Type.Object({
    username: Type.String({ minLength: 1 }),
    password: Secret('Password an inbound INVITE must answer our digest challenge with.'),
  }, { additionalProperties: false, description: 'Admit inbound calls that authenticate with these digest credentials (from any address).' })),
  codecs: Type.Array(Codec, { minItems: 1, default: ['PCMU', 'PCMA'], description: 'In order of preference.' }),
  transfer: Type.Union([Type.Literal('refer'), Type.Literal('bridge')], { default: 'bridge' }),
}, { additionalProperties: false });
export type SipTrunkConfig = Static<typeof SipTrunkConfig>;

export const SipSectionConfig = Type.Object({
  listen: Type.Object({
    host: Type.String({ minLength: 1, default: '0.0.0.0' }),
    udp_port: Type.Optional(Port()),
    tcp_port: Type.Optional(Port()),
  }, { additionalProperties: false, default: {} }),
  public_host: Type.String({ minLength: 1, description: 'Host or IP the trunk can reach us at (Via, Contact, SDP).' }),
  rtp: Type.Object({
    port_min: Port(10000),
    port_max: Port(20000),
  }, { additionalProperties: false, default: {} }),
  trunks: Type.Array(SipTrunkConfig, { minItems: 1 }),
  node_lease_seconds: Type.Integer({ minimum: 1, maximum: 300, default: 15, description: 'A node that has not renewed its lease this long is dead: a surviving node ends its live calls.' }),
}, { additionalProperties: false });
export type SipSectionConfig = Static<typeof SipSectionConfig>;

export function trunkSettings(trunk: SipTrunkConfig): TrunkSettings {
  return {
    name: trunk.name, host: trunk.host, port: trunk.port, transport: trunk.transport, username: trunk.username, password: trunk.password,
    inboundSources: trunk.inbound_sources, inboundAuth: trunk.inbound_auth, codecs: trunk.codecs, transfer: trunk.transfer,
  };
}

/** The validated section as the carrier uses it; no listener configured means UDP 5060. */
export function sipSettings(section: SipSectionConfig): SipSettings {
  const noListener = section.listen.udp_port === undefined && section.listen.tcp_port === undefined;
  return {
    bindHost: section.listen.host,
    udpPort: noListener ? 5060 : section.listen.udp_port,
    tcpPort: section.listen.tcp_port,
    publicHost: section.public_host,
    rtpPortMin: section.rtp.port_min,
    rtpPortMax: section.rtp.port_max,
    trunks: section.trunks.map(trunkSettings),
    nodeLeaseSeconds: section.node_lease_seconds,
  };
}

registerCarrierKind({
  section: 'sip',
  schema: SipSectionConfig,
  links: (value, base): CarrierLink[] => (value as SipSectionConfig).trunks.map((trunk, i) => ({
    name: trunk.name, kind: 'sip', role: 'voice', channels: [], path: `${base}.trunks[${i}]`, config: trunk,
    target: `sip:${trunk.host}:${trunk.port};transport=${trunk.transport}`,
  })),
  probe: (link, opts) => probeTrunk(trunkSettings(link.config as SipTrunkConfig), opts.timeoutMs),
});
