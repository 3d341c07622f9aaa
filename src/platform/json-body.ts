// What a request body may be: JSON (application/json), in UTF-8, not compressed. Anything else
// is refused as a whole with a 415 `unsupported_media_type` saying what to send instead
// (issue 11.11), rather than read some other way: Fastify's own text/plain parser would hand a
// string to the route (a 400 about types that hides the real mistake), and a body we cannot
// decode (gzip, br, a latin1 charset) would be misread, not understood.
// Fastify's own JSON parser decodes bytes leniently (invalid UTF-8 becomes U+FFFD, silently
// changing what the client sent) and refuses an empty body; ours refuses invalid UTF-8 with a
// 400 and reads an empty body as "no body", whatever its label, so body-less actions (hangup,
// revoke, ...) accept the Content-Type that clients send by habit. What the text must be, and
// how a mistake in it is told (where, and which key), is json-text.ts.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Problem } from './problems.ts';
import { parseJsonText } from './json-text.ts';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const UTF8_LABELS = new Set(['utf-8', 'utf8']);

function unsupported(detail: string): Problem {
  return new Problem('unsupported_media_type', detail);
}

/** The charset parameter of a Content-Type, lower-cased and unquoted, or null when absent. */
function charsetOf(contentType: string): string | null {
  for (const parameter of contentType.split(';').slice(1)) {
    const [name, ...value] = parameter.split('=');
    if (name?.trim().toLowerCase() === 'charset') return value.join('=').trim().replace(/^"(.*)"$/, '$1').toLowerCase();
  }
  return null;
}

/** A problem when the body is sent in a way we do not decode; null when it can be read as is. */
function encodingRefusal(request: FastifyRequest): Problem | null {
  const encoding = request.headers['content-encoding'];
  const codings = (encoding ?? '').split(',').map((c) => c.trim().toLowerCase()).filter((c) => c !== '' && c !== 'identity');
  if (codings.length > 0) {
    return unsupported(`Content-Encoding ${encoding} is not supported: send the body uncompressed (no Content-Encoding, or identity).`);
  }
  const charset = charsetOf(request.headers['content-type'] ?? '');
  if (charset !== null && !UTF8_LABELS.has(charset)) {
    return unsupported(`charset=${charset} is not supported: JSON is read as UTF-8 only (charset=utf-8, or no charset).`);
  }
  return null;
}

export function registerJsonBodyParser(app: FastifyInstance): void {
  // Drops Fastify's text/plain parser with its JSON one: text is not JSON under another label.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const bytes = body as Buffer;
    if (bytes.length === 0) return done(null, undefined);
    const refusal = request.is404 ? null : encodingRefusal(request); // an unknown route is a 404 whatever its body
    if (refusal) return done(refusal, undefined);
    let text: string;
    try {
      text = strictUtf8.decode(bytes);
    } catch {
      return done(new Problem('malformed_json', 'The body is not valid UTF-8; JSON must be sent as UTF-8 text.'), undefined);
    }
    let parsed: unknown;
    try {
      parsed = parseJsonText(text); // refuses __proto__ and constructor.prototype keys, as Fastify's parser did
    } catch (err) {
      return done(err as Error, undefined);
    }
    done(null, parsed);
  });
  // Every other type, and a body without a Content-Type.
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (request, body, done) => {
    if ((body as Buffer).length === 0 || request.is404) return done(null, undefined);
    const type = request.headers['content-type'];
    done(unsupported(type === undefined
      ? 'The body has no Content-Type: send it as JSON with Content-Type: application/json.'
      : `Content-Type ${type} is not accepted: send the body as JSON with Content-Type: application/json.`), undefined);
  });
}
