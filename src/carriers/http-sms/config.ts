// The `http_sms` section of the carriers file: messaging over an HTTP provider's REST API.
// One provider is implemented, Twilio's Programmable Messaging (SMS and MMS): sends go to
// `{api_base_url}/2010-04-01/Accounts/{account_sid}/Messages.json`; status callbacks and
// inbound messages come to `/hooks/carriers/{name}` on this server, signed by Twilio.
import { Type, type Static } from 'typebox';
import { Secret } from '../config/secrets.ts';
import { LinkName } from '../smpp/config.ts';

export const HttpSmsConfig = Type.Object({
  name: LinkName,
  provider: Type.Literal('twilio', { description: 'The REST API spoken; only Twilio\'s today.' }),
  account_sid: Type.String({ pattern: '^AC[0-9a-f]{32}$', description: 'The Account SID (AC...).' }),
  auth_token: Secret('The account\'s Auth Token: authenticates our requests and is the key of X-Twilio-Signature on callbacks.'),
  channels: Type.Array(Type.Union([Type.Literal('sms'), Type.Literal('mms')]), { minItems: 1, uniqueItems: true, default: ['sms', 'mms'] }),
  api_base_url: Type.String({ pattern: '^https?://[^\\s]+$', default: 'https://api.twilio.com', description: 'The REST API origin (a test double or a proxy).' }),
  request_timeout_seconds: Type.Number({ minimum: 1, maximum: 120, default: 15 }),
}, { additionalProperties: false });
export type HttpSmsConfig = Static<typeof HttpSmsConfig>;

export function accountUrl(c: HttpSmsConfig): string {
  return `${c.api_base_url.replace(/\/+$/, '')}/2010-04-01/Accounts/${c.account_sid}`;
}
