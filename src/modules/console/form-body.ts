// HTML forms post application/x-www-form-urlencoded, which the API refuses (it reads JSON only):
// this parser exists only inside the console's routes. Repeated names keep their last value.
import type { FastifyInstance } from 'fastify';

export function registerFormParser(scope: FastifyInstance): void {
  scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 64 * 1024 }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
}

/** A form field as a trimmed string, or undefined when absent or empty. */
export function field(body: unknown, name: string): string | undefined {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}
