// The hook in front of every signed-in console route: no live session, back to the sign-in
// page (a revoked or expired key has already ended it); a POST without the session's CSRF
// token is refused before its handler runs.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_COOKIE, clearCookie, readCookie } from './cookies.ts';
import { csrfMatches } from './csrf.ts';
import { html } from './html.ts';
import { sendHtml, signedInPage } from './layout.ts';
import type { ConsoleSessions } from './sessions.ts';

export function sessionGuard(sessions: ConsoleSessions) {
  return async function requireSession(request: FastifyRequest, reply: FastifyReply) {
    const token = readCookie(request, SESSION_COOKIE);
    const session = token ? await sessions.resolve(token, request.ip) : null;
    if (!session) {
      if (token) clearCookie(request, reply, SESSION_COOKIE);
      return reply.code(303).header('location', '/console/sign-in').send();
    }
    request.consoleSession = session;
    if (request.method !== 'GET' && request.method !== 'HEAD' && !csrfMatches(session.csrfToken, request.body)) {
      return sendHtml(reply, signedInPage(session, {
        title: 'Form refused',
        body: html`<p>This form was not sent by a console page of this session (its CSRF token is missing or wrong), so nothing was done. Go back, reload the page and try again.</p>`,
      }), 403);
    }
  };
}
