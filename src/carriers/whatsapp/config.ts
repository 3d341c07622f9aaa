// The `whatsapp` section of the carriers file: one entry per WhatsApp Business phone number
// on the Cloud API. Sends go to `{graph_base_url}/{api_version}/{phone_number_id}/messages`;
// Meta's webhook for the app comes to `/hooks/carriers/{name}` on this server.
import { Type, type Static } from 'typebox';
import { Secret } from '../config/secrets.ts';
import { LinkName } from '../smpp/config.ts';

export const WhatsAppConfig = Type.Object({
  name: LinkName,
  phone_number_id: Type.String({ pattern: '^[0-9]{1,32}$', description: 'The Cloud API phone number id (not the phone number) from the WhatsApp Manager.' }),
  access_token: Secret('A system user access token with whatsapp_business_messaging.'),
  app_secret: Secret('The Meta app secret: X-Hub-Signature-256 on every webhook is checked with it.'),
  verify_token: Secret('The token you type into the webhook settings; Meta echoes it in the hub.challenge handshake.'),
  graph_base_url: Type.String({ pattern: '^https?://[^\\s]+$', default: 'https://graph.facebook.com', description: 'The Graph API origin; a test double or a proxy in tests and air-gapped setups.' }),
  api_version: Type.String({ pattern: '^v[0-9]+\\.[0-9]+$', default: 'v21.0' }),
  request_timeout_seconds: Type.Number({ minimum: 1, maximum: 120, default: 15 }),
}, { additionalProperties: false });
export type WhatsAppConfig = Static<typeof WhatsAppConfig>;

/** The messages endpoint of one link. */
export function messagesUrl(c: WhatsAppConfig): string {
  return `${c.graph_base_url.replace(/\/+$/, '')}/${c.api_version}/${c.phone_number_id}/messages`;
}
