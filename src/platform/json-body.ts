// The application/json body parser. Fastify's own one decodes bytes leniently (invalid UTF-8
// becomes U+FFFD, silently changing what the client sent) and refuses an empty body; ours
// refuses invalid UTF-8 with a 400 and reads an empty body as "no body", so body-less actions
// (hangup, revoke, ...) accept the Content-Type: application/json that most clients always send.
import type { FastifyInstance } from 'fastify';
import { Problem } from './problems.ts';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

export function registerJsonBodyParser(app: FastifyInstance): void {
  // Keeps Fastify's protection against __proto__ and constructor.prototype keys.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const bytes = body as Buffer;
    if (bytes.length === 0) return done(null, undefined);
    let text: string;
    try {
      text = strictUtf8.decode(bytes);
    } catch {
      return done(new Problem('malformed_json', 'The body is not valid UTF-8; JSON must be sent as UTF-8 text.'), undefined);
    }
    parseJson(request, text, done);
  });
}
