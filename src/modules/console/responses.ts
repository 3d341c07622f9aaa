// What every console response carries, and how a failure is shown: as a page, never as the
// API's JSON problem, with the problem's own sentence.
import type { FastifyError, FastifyInstance } from 'fastify';
import { Problem } from '../../platform/problems.ts';
import { html } from './html.ts';
import { sendHtml, signedInPage, signedOutPage } from './layout.ts';

// Scripts and styles only from this server (no inline script: an injected <script> would not
// run even if escaping failed), no framing, no referrer (ids in URLs stay here), no caching.
const SECURITY_HEADERS = {
  'content-security-policy': "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; media-src 'self'; connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'; object-src 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

export function registerResponses(scope: FastifyInstance): void {
  scope.addHook('onSend', async (_request, reply, payload) => {
    // Assets set their own caching; pages are never cached.
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) if (!reply.hasHeader(name)) reply.header(name, value);
    return payload;
  });

  scope.setErrorHandler((error: FastifyError, request, reply) => {
    const problem = error instanceof Problem ? error : null;
    const status = problem?.status ?? (error.statusCode && error.statusCode < 500 ? error.statusCode : 500);
    if (status >= 500) request.log.error({ err: error }, 'console page failed');
    const detail = problem ? problem.message : status < 500 ? error.message : `Something went wrong on our side (request ${request.id}).`;
    const page = { title: status === 404 ? 'Not found' : status === 403 ? 'Not allowed' : 'Could not do that', body: html`<p>${detail}</p><p><a href="/console">Back to the overview</a></p>` };
    return sendHtml(reply, request.consoleSession ? signedInPage(request.consoleSession, page) : signedOutPage(page), status);
  });
}
