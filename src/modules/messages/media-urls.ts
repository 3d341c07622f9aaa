// Where a message's media_urls may point. A live carrier (Twilio, Meta) fetches them on our
// behalf, so in live mode they follow the whole webhook URL policy (public https hosts, DNS
// answers included): a message cannot aim a provider at private addresses. Nothing fetches
// sandbox media, so there the policy applies without DNS: scheme, credentials and IP literals
// (http://0.0.0.0:9/ is refused in both modes; a sandbox may name hosts it cannot resolve).
import type { Mode } from '../../store/platform-tables.ts';
import { assertUrlShapeAllowed, assertWebhookUrlAllowed, type UrlPolicyConfig } from '../webhooks/url-policy.ts';

export async function assertMediaUrlsAllowed(urls: string[], mode: Mode, config: UrlPolicyConfig): Promise<void> {
  for (const [i, url] of urls.entries()) {
    const field = `media_urls.${i}`;
    if (mode === 'live') await assertWebhookUrlAllowed(url, mode, config, field);
    else assertUrlShapeAllowed(url, mode, config, field);
  }
}
