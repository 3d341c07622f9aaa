// The `sip` section of the carriers file: where the SIP user agent listens, the address it
// advertises, the RTP port range, and one entry per trunk. Trunks are voice links: a live
// number is bound to one by name (`switchboard numbers import --trunk NAME`).
import { Type, type Static } from 'typebox';
import { Secret } from '../config/secrets.ts';
import { registerCarrierKind, type CarrierLink } from '../config/registry.ts';
import { LinkName } from '../smpp/config.ts';
import { probeTrunk } from './probe.ts';
import { tlsFileProblems } from './tls.ts';
import { trunkUri } from './trunk-target.ts';
import type { SipSettings, SipTlsSettings, TrunkSettings } from './settings.ts';
import type { CountryCode } from 'libphonenumber-js';

const Port = (fallback?: number) => Type.Integer({ minimum: 1, maximum: 65535, ...(fallback === undefined ? {} : { default: fallback }) });
const Codec = Type.Union([Type.Literal('PCMU'), Type.Literal('PCMA')]);

export const SipTrunkConfig = Type.Object({
  name: LinkName,
  host: Type.String({ minLength: 1, description: 'The carrier\'s SIP host (or your outbound proxy); INVITEs go here.' }),
  port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535, description: '5060, or 5061 with transport tls.' })),
  transport: Type.Union([Type.Literal('udp'), Type.Literal('tcp'), Type.Literal('tls')], { default: 'udp' }),
  sips: Type.Boolean({ default: false, description: 'With transport tls: address the trunk with sips: URIs (TLS on every hop) rather than sip:...;transport=tls.' }),
  tls_server_name: Type.Optional(Type.String({ minLength: 1, description: 'The name the trunk\'s TLS certificate carries, when host is an IP address.' })),
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
  caller_id: Type.Object({
    number_format: Type.Union([Type.Literal('e164'), Type.Literal('digits'), Type.Literal('national')], {
      default: 'e164', description: 'How numbers are written to the trunk (Request-URI, To, From) and read from it: +14155550142, 14155550142, or the national 4155550142.',
    }),
    country: Type.String({ pattern: '^[A-Z]{2}$', default: 'US', description: 'The country (ISO 3166 alpha-2) of national numbers; numbers of other countries go in full.' }),
    asserted_identity: Type.Boolean({ default: false, description: 'Add P-Asserted-Identity with the caller\'s number, for carriers that take the caller id from it.' }),
  }, { additionalProperties: false, default: {} }),
  register: Type.Optional(Type.Object({
    expires: Type.Integer({ minimum: 60, maximum: 86400, default: 3600, description: 'Seconds asked for; refreshed at half what the registrar grants.' }),
  }, {
    additionalProperties: false,
    description: 'REGISTER with the trunk (username and password) so it sends calls to us: for carriers that deliver only to a registered contact. While the binding is up, INVITEs from the addresses the registrar host resolves to are admitted as calls on this trunk; list other signalling addresses of the carrier in inbound_sources.',
  })),
}, { additionalProperties: false });
export type SipTrunkConfig = Static<typeof SipTrunkConfig>;

export const SipSectionConfig = Type.Object({
  listen: Type.Object({
    host: Type.String({ minLength: 1, default: '0.0.0.0' }),
    udp_port: Type.Optional(Port()),
    tcp_port: Type.Optional(Port()),
    tls_port: Type.Optional(Port()),
  }, { additionalProperties: false, default: {} }),
  tls: Type.Object({
    cert_file: Type.Optional(Type.String({ minLength: 1, description: 'PEM certificate (chain) of the TLS listener; also offered to carriers that ask for a client certificate.' })),
    key_file: Type.Optional(Type.String({ minLength: 1, description: 'PEM private key of cert_file.' })),
    ca_file: Type.Optional(Type.String({ minLength: 1, description: 'PEM bundle of the CAs a peer\'s certificate must chain to; without it, the system CAs.' })),
    verify: Type.Boolean({ default: true, description: 'Refuse a peer whose certificate does not verify (chain and name).' }),
  }, { additionalProperties: false, default: {} }),
  public_host: Type.String({ minLength: 1, description: 'Host or IP the trunk can reach us at (Via, Contact, SDP).' }),
  rtp: Type.Object({
    port_min: Port(10000),
    port_max: Port(20000),
    workers: Type.Optional(Type.Integer({ minimum: 1, maximum: 16, description: 'Media worker threads that carry RTP; by default one per CPU core (at most 8).' })),
  }, { additionalProperties: false, default: {} }),
  trunks: Type.Array(SipTrunkConfig, { minItems: 1 }),
  registrar: Type.Object({
    min_expires: Type.Integer({ minimum: 1, maximum: 3600, default: 60, description: 'A softphone asking for a shorter registration gets 423 Interval Too Brief with this Min-Expires.' }),
    max_expires: Type.Integer({ minimum: 1, maximum: 86400, default: 3600, description: 'Longer registrations are granted this long.' }),
    default_expires: Type.Integer({ minimum: 1, maximum: 86400, default: 3600, description: 'Granted when a REGISTER names no expiry (clamped to min and max).' }),
    nat: Type.Union([Type.Literal('auto'), Type.Literal('always')], {
      default: 'auto',
      description: 'Where calls to a softphone go: auto sends to the address its REGISTER came from when its Contact is a private or loopback address other than that source (a softphone behind NAT), else to the Contact; always sends to the REGISTER\'s source.',
    }),
  }, { additionalProperties: false, default: {}, description: 'The registrar for workers\' softphones (docs/contact-center.md, "Softphone registration").' }),
  node_lease_seconds: Type.Integer({ minimum: 1, maximum: 300, default: 15, description: 'A node that has not renewed its lease this long is dead: a surviving node ends its live calls.' }),
}, { additionalProperties: false });
export type SipSectionConfig = Static<typeof SipSectionConfig>;

export function trunkSettings(trunk: SipTrunkConfig): TrunkSettings {
  return {
    name: trunk.name, host: trunk.host, port: trunk.port ?? (trunk.transport === 'tls' ? 5061 : 5060), transport: trunk.transport,
    sips: trunk.sips, tlsServerName: trunk.tls_server_name, username: trunk.username, password: trunk.password,
    inboundSources: trunk.inbound_sources, inboundAuth: trunk.inbound_auth, codecs: trunk.codecs, transfer: trunk.transfer,
    register: trunk.register ? { expiresSeconds: trunk.register.expires } : undefined,
    callerId: { format: trunk.caller_id.number_format, country: trunk.caller_id.country as CountryCode, assertedIdentity: trunk.caller_id.asserted_identity },
  };
}

/** The validated section as the carrier uses it; no listener configured means UDP 5060. */
export function sipSettings(section: SipSectionConfig): SipSettings {
  const { listen } = section;
  const noListener = listen.udp_port === undefined && listen.tcp_port === undefined && listen.tls_port === undefined;
  return {
    bindHost: listen.host,
    udpPort: noListener ? 5060 : listen.udp_port,
    tcpPort: listen.tcp_port,
    tlsPort: listen.tls_port,
    tls: tlsSettings(section.tls),
    publicHost: section.public_host,
    rtpPortMin: section.rtp.port_min,
    rtpPortMax: section.rtp.port_max,
    rtpWorkers: section.rtp.workers,
    trunks: section.trunks.map(trunkSettings),
    nodeLeaseSeconds: section.node_lease_seconds,
    registrar: {
      minExpires: section.registrar.min_expires, maxExpires: Math.max(section.registrar.min_expires, section.registrar.max_expires),
      defaultExpires: section.registrar.default_expires, nat: section.registrar.nat,
    },
  };
}

function tlsSettings(tls: SipSectionConfig['tls']): SipTlsSettings {
  return { certFile: tls.cert_file, keyFile: tls.key_file, caFile: tls.ca_file, verify: tls.verify };
}

/** What the schema cannot say: TLS needs its files (readable, the key matching) and a listener. */
export function sipSectionProblems(section: SipSectionConfig): { path: (string | number)[]; message: string }[] {
  const problems: { path: (string | number)[]; message: string }[] = [];
  if (section.listen.tls_port !== undefined) {
    for (const field of ['cert_file', 'key_file'] as const) {
      if (!section.tls[field]) problems.push({ path: ['tls', field], message: 'is required for the TLS listener (listen.tls_port)' });
    }
  }
  section.trunks.forEach((trunk, i) => {
    if (trunk.transport === 'tls' && section.listen.tls_port === undefined) {
      // The carrier sends BYE and re-INVITEs to our Contact, over TLS: we must listen for them.
      problems.push({ path: ['trunks', i, 'transport'], message: 'is tls: set listen.tls_port (and tls.cert_file, tls.key_file), where the trunk reaches us for in-dialog requests' });
    }
    if (trunk.sips && trunk.transport !== 'tls') problems.push({ path: ['trunks', i, 'sips'], message: 'needs transport: tls' });
    if (trunk.register && (!trunk.username || !trunk.password)) {
      problems.push({ path: ['trunks', i, 'register'], message: 'needs the trunk\'s username and password: the registrar challenges the REGISTER' });
    }
  });
  for (const problem of tlsFileProblems(tlsSettings(section.tls))) problems.push({ path: ['tls', ...problem.path], message: problem.message });
  return problems;
}

/** The link a trunk is, with the TLS settings its probe connects with. */
interface TrunkLinkConfig {
  trunk: SipTrunkConfig;
  tls: SipTlsSettings;
}

registerCarrierKind({
  section: 'sip',
  schema: SipSectionConfig,
  check: (value) => sipSectionProblems(value as SipSectionConfig),
  links: (value, base): CarrierLink[] => (value as SipSectionConfig).trunks.map((trunk, i) => ({
    name: trunk.name, kind: 'sip', role: 'voice', channels: [], path: `${base}.trunks[${i}]`,
    config: { trunk, tls: tlsSettings((value as SipSectionConfig).tls) } satisfies TrunkLinkConfig,
    target: trunkUri(trunkSettings(trunk)),
  })),
  probe: (link, opts) => {
    const { trunk, tls } = link.config as TrunkLinkConfig;
    return probeTrunk(trunkSettings(trunk), tls, opts.timeoutMs);
  },
});
