// A stream's URL under the webhook URL policy (modules/webhooks/url-policy.ts): the same
// rules and SSRF checks, read for WebSockets. ws:// is judged as http:// and wss:// as
// https://, so live streams need wss:// to a public address (or an operator-allowed private
// one), and the sandbox may use ws:// on loopback. The check runs when the stream is asked
// for (or its flow saved) and again when it connects: the address resolved then is the one
// the media port connects to.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { Mode } from '../../store/platform-tables.ts';
import { UrlNotAllowed, addressAllowed, assertWebhookUrlAllowed, checkUrlShape, type UrlPolicyConfig } from '../webhooks/url-policy.ts';

/** The http(s) URL the webhook policy judges for a ws(s) URL (another scheme stays as it is, and is refused). */
export function asHttpUrl(url: string): string {
  return url.replace(/^ws(s?):\/\//i, 'http$1://');
}

/** Refuses (422 webhook_url_not_allowed naming `field`) a stream URL the policy forbids. */
export async function assertStreamUrlAllowed(url: string, mode: Mode, config: UrlPolicyConfig, field: string): Promise<void> {
  await assertWebhookUrlAllowed(asHttpUrl(url), mode, config, field);
}

/** Where to connect, checked now: the address (null for an IP literal); throws UrlNotAllowed. */
export async function resolveStreamAddress(url: string, mode: Mode, config: UrlPolicyConfig): Promise<string | null> {
  const parsed = checkUrlShape(asHttpUrl(url), mode, config);
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host)) return null;
  let addresses;
  try {
    addresses = await lookup(host, { all: true, verbatim: true });
  } catch {
    throw new UrlNotAllowed(`the host ${host} does not resolve`);
  }
  const bad = addresses.find((a) => !addressAllowed(a.address, mode, parsed.protocol, config));
  if (bad || addresses.length === 0) throw new UrlNotAllowed(`${host} resolves to ${bad?.address ?? 'nothing'}, which is not allowed`);
  return addresses[0]!.address;
}
