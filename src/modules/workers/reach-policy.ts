// Which SIP URIs a live worker may be reached at. Routing dials a SIP URI reach straight from
// the server (over no trunk), so an account could otherwise make Switchboard ring machines on
// the operator's own network: the same policy as webhook URLs applies (url-policy.ts). The
// host must be (or resolve only to) public addresses, unless the operator allows private
// targets (SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE=true). The transport, when named, must be one
// the SIP stack speaks. Sandbox workers are never dialled (the simulator answers for them),
// so their URIs are only checked for shape by the schema. The carrier judges the resolved
// address again when it dials (DNS can change).
import { lookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import type { Mode } from '../../store/platform-tables.ts';
import { Problem } from '../../platform/problems.ts';
import { addressAllowed, type UrlPolicyConfig } from '../webhooks/url-policy.ts';
import type { WorkerReach } from './tables.ts';

const TRANSPORTS = new Set(['udp', 'tcp', 'tls']);

/** The host of `sip[s]:user@host[:port][;params]` (brackets of an IPv6 literal removed) and its transport parameter. */
function partsOf(uri: string): { host: string; transport: string | undefined } | undefined {
  const match = /^sips?:[^@]+@(\[[0-9a-fA-F:.]+\]|[^:;?[\]]+)(?::(\d{1,5}))?((?:;[^;?]*)*)$/i.exec(uri);
  if (!match) return undefined;
  const transport = /;transport=([^;]*)/i.exec(match[3] ?? '')?.[1]?.toLowerCase();
  if (match[2] !== undefined && (Number(match[2]) < 1 || Number(match[2]) > 65535)) return undefined;
  return { host: match[1]!.replace(/^\[(.*)\]$/, '$1'), transport };
}

function refusal(message: string): Problem {
  return new Problem('reach_not_allowed', `reach: ${message}.`, { errors: [{ field: 'reach', message, code: 'not_allowed' }] });
}

function resolveAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    lookup(host, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses)));
  });
}

/** Throws a 422 `reach_not_allowed` problem when a live worker's SIP URI reach may not be dialled. */
export async function assertReachAllowed(reach: WorkerReach | undefined, mode: Mode, config: UrlPolicyConfig): Promise<void> {
  if (typeof reach !== 'string' || !/^sips?:/i.test(reach) || mode !== 'live') return;
  const parts = partsOf(reach);
  if (!parts) throw refusal(`${reach} is not a SIP URI Switchboard can dial (sip:user@host[:port][;transport=udp|tcp|tls])`);
  if (parts.transport !== undefined && !TRANSPORTS.has(parts.transport)) throw refusal(`the transport ${parts.transport} is not one of udp, tcp, tls`);
  // addressAllowed judges plain http strictly; a SIP URI is judged as any other scheme.
  const allowed = (ip: string) => addressAllowed(ip, mode, 'sip:', config);
  if (isIP(parts.host)) {
    if (!allowed(parts.host)) throw refusal(`${parts.host} is not a public address`);
    return;
  }
  let addresses: LookupAddress[];
  try {
    addresses = await resolveAll(parts.host);
  } catch {
    throw refusal(`the host ${parts.host} does not resolve`);
  }
  const bad = addresses.find((a) => !allowed(a.address));
  if (bad) throw refusal(`${parts.host} resolves to ${bad.address}, which is not a public address`);
}
