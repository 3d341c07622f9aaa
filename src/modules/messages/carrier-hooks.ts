// Public routes where messaging providers call us back (Meta's WhatsApp webhook today):
// `GET /hooks/carriers/{link}` answers the verification handshake, `POST` takes a signed
// notification. No API key: the provider proves itself with the link's secrets (the verify
// token, the HMAC signature over the raw body), checked by the link's carrier code. Outside
// /v1 and hidden from the OpenAPI document: integrators never call these.
import type { App } from '../../platform/app-type.ts';
import { Problem } from '../../platform/problems.ts';
import type { LiveMessaging } from '../../carriers/index.ts';

export async function carrierHookRoutes(app: App, live: LiveMessaging): Promise<void> {
  await app.register(async (scope) => {
    // The signature covers the exact bytes sent, so this scope keeps JSON bodies raw.
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

    const hookOf = (link: string) => {
      const hook = live.webhook(link);
      if (!hook) throw new Problem('not_found', `No messaging link named "${link}" takes provider webhooks on this server; the URL ends with the link's name in the carriers file.`);
      return hook;
    };

    scope.get<{ Params: { link: string }; Querystring: Record<string, unknown> }>('/hooks/carriers/:link', { config: { public: true }, schema: { hide: true } }, async (request, reply) => {
      const challenge = hookOf(request.params.link).verify(request.query);
      if (challenge === null) throw new Problem('provider_verification_failed', 'hub.mode must be "subscribe" and hub.verify_token the verify_token of this link in the carriers file.');
      return reply.type('text/plain').send(challenge);
    });

    scope.post<{ Params: { link: string } }>('/hooks/carriers/:link', { config: { public: true }, schema: { hide: true } }, async (request, reply) => {
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const hook = hookOf(request.params.link);
      const outcome = await hook.receive(raw, request.headers, request.url);
      if (outcome === 'bad_signature') {
        throw new Problem('provider_signature_invalid', 'The signature header (X-Hub-Signature-256 for WhatsApp, X-Twilio-Signature for Twilio) does not match this link\'s secret'
          + ' over this request; for Twilio, SWITCHBOARD_PUBLIC_URL must be the URL Twilio calls.');
      }
      if (outcome === 'malformed') throw new Problem('malformed_json', 'The notification is not valid JSON.');
      if (hook.accepted) return reply.type(hook.accepted.contentType).send(hook.accepted.body);
      return { received: true };
    });
  });
}
