// Where webhooks may be sent (issue 3, point 8). One policy for subscriptions and for a
// resource's own webhook_url (calls and messages call assertWebhookUrlAllowed too):
//   - live: https only; sandbox: http or https (local development).
//   - the host must not resolve to loopback, private, link-local or other non-public
//     addresses; sandbox may use loopback (http://localhost:3000). The operator may allow
//     private targets (SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE=true): then internal targets may
//     also be plain http in live mode, since internal services often are.
// It is checked when a URL is saved AND when a delivery connects (DNS can change): the
// delivery agent resolves through guardedLookup, so the address checked is the address used.
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { addressesToJudge, type Address } from './address-forms.ts';
import type { Mode } from '../../store/platform-tables.ts';
import { Problem } from '../../platform/problems.ts';

export interface UrlPolicyConfig {
  webhookAllowPrivate: boolean;
}

const MAX_URL_LENGTH = 2048;
const NEVER = new Set(['unspecified', 'multicast', 'broadcast']);

export class UrlNotAllowed extends Error {}

/**
 * Is a connection to `ip` allowed for a webhook of this mode and scheme? Every IPv4 address an
 * IPv6 form carries (mapped, compatible, NAT64, 6to4, Teredo) is judged, not the wrapper.
 */
export function addressAllowed(ip: string, mode: Mode, protocol: string, config: UrlPolicyConfig): boolean {
  const judged = addressesToJudge(ip);
  return judged !== null && judged.every((address) => oneAddressAllowed(address, mode, protocol, config));
}

function oneAddressAllowed(address: Address, mode: Mode, protocol: string, config: UrlPolicyConfig): boolean {
  const range = address.range();
  if (NEVER.has(range)) return false;
  const isPublic = range === 'unicast';
  // Plain http in live mode is only for operator-allowed internal targets.
  if (mode === 'live' && protocol === 'http:') return config.webhookAllowPrivate && !isPublic;
  if (isPublic || config.webhookAllowPrivate) return true;
  return mode === 'sandbox' && range === 'loopback';
}

function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1'); // IPv6 literals come bracketed
}

/** Checks that need no DNS: syntax, scheme, credentials, and IP-literal hosts. Throws UrlNotAllowed. */
export function checkUrlShape(raw: string, mode: Mode, config: UrlPolicyConfig): URL {
  if (raw.length > MAX_URL_LENGTH) throw new UrlNotAllowed(`the URL is longer than ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UrlNotAllowed('it is not an absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new UrlNotAllowed('only http and https URLs are allowed');
  if (mode === 'live' && url.protocol === 'http:' && !config.webhookAllowPrivate) {
    throw new UrlNotAllowed('live webhooks must use https');
  }
  if (url.username || url.password) throw new UrlNotAllowed('credentials in the URL are not allowed; authenticate with the signature');
  if (url.hash) throw new UrlNotAllowed('a URL fragment is not allowed');
  const host = hostOf(url);
  if (isIP(host) && !addressAllowed(host, mode, url.protocol, config)) {
    throw new UrlNotAllowed(`${host} is not a public address${mode === 'sandbox' ? ' (sandbox allows loopback)' : ''}`);
  }
  return url;
}

function resolveAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    dnsLookup(host, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses)));
  });
}

function refusal(field: string, why: string): Problem {
  return new Problem('webhook_url_not_allowed', `${field}: ${why}.`, { errors: [{ field, message: why, code: 'not_allowed' }] });
}

/**
 * The save-time check of a URL nobody on this server connects to (sandbox media URLs): the
 * policy without DNS. Throws a 422 `webhook_url_not_allowed` problem naming the field.
 */
export function assertUrlShapeAllowed(raw: string, mode: Mode, config: UrlPolicyConfig, field: string): URL {
  try {
    return checkUrlShape(raw, mode, config);
  } catch (err) {
    if (err instanceof UrlNotAllowed) throw refusal(field, err.message);
    throw err;
  }
}

/**
 * The check at save time, exported for every module that stores a webhook URL.
 * Throws a 422 `webhook_url_not_allowed` problem naming the reason.
 */
export async function assertWebhookUrlAllowed(raw: string, mode: Mode, config: UrlPolicyConfig, field = 'url'): Promise<URL> {
  const url = assertUrlShapeAllowed(raw, mode, config, field);
  const host = hostOf(url);
  if (isIP(host)) return url;
  let addresses: LookupAddress[];
  try {
    addresses = await resolveAll(host);
  } catch {
    throw refusal(field, `the host ${host} does not resolve`);
  }
  const bad = addresses.find((a) => !addressAllowed(a.address, mode, url.protocol, config));
  if (bad) throw refusal(field, `${host} resolves to ${bad.address}, which is not a public address`);
  return url;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A dns.lookup replacement for the delivery agent: refuses hosts that resolve to forbidden addresses. */
export function guardedLookup(mode: Mode, protocol: string, config: UrlPolicyConfig) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '');
      const list = addresses as LookupAddress[];
      const bad = list.find((a) => !addressAllowed(a.address, mode, protocol, config));
      if (bad || list.length === 0) {
        const refused = new Error(`webhook URL not allowed: ${hostname} resolves to ${bad?.address ?? 'nothing'}`) as NodeJS.ErrnoException;
        refused.code = 'EWEBHOOKURL';
        return callback(refused, '');
      }
      if (options.all) return callback(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
}
