// Signing in and out. The key travels once, in the body of a POST over the form (never in a
// URL), is hashed to find its row, and is not kept: the session refers to the key by id.
// Attempts spend from the caller's address bucket, the one the API's requests with a bad key
// spend from, so guessing keys here is no faster than guessing them on the API.
import type { FastifyInstance } from 'fastify';
import type { Platform } from '../../../platform/context.ts';
import { html } from '../html.ts';
import { SESSION_COOKIE, SIGN_IN_COOKIE, clearCookie, readCookie, setCookie } from '../cookies.ts';
import { csrfField, csrfMatches } from '../csrf.ts';
import { sendHtml, signedOutPage } from '../layout.ts';
import { SESSION_HOURS, newToken, type ConsoleSessions } from '../sessions.ts';
import { field } from '../form-body.ts';

function signInForm(token: string) {
  return html`<form class="sign-in" method="post" action="/console/sign-in">
<h1>Sign in to the console</h1>
<p class="muted">Paste an API key (sb_test_… for the sandbox, sb_live_… for live). What it may do, the console may do.</p>
${csrfField(token)}
<label for="key">API key</label>
<input id="key" name="key" type="password" autocomplete="off" spellcheck="false" required>
<button type="submit">Sign in</button></form>`;
}

export function signInRoutes(scope: FastifyInstance, sessions: ConsoleSessions, platform: Platform): void {
  scope.get('/sign-in', async (request, reply) => {
    const live = readCookie(request, SESSION_COOKIE);
    if (live && (await sessions.resolve(live, request.ip))) return reply.code(303).header('location', '/console').send();
    const token = readCookie(request, SIGN_IN_COOKIE) ?? newToken();
    setCookie(request, reply, SIGN_IN_COOKIE, token, 3600);
    return sendHtml(reply, signedOutPage({ title: 'Sign in', body: signInForm(token) }));
  });

  scope.post('/sign-in', async (request, reply) => {
    const formToken = readCookie(request, SIGN_IN_COOKIE);
    const again = (status: number, error: string) => {
      const token = formToken ?? newToken();
      setCookie(request, reply, SIGN_IN_COOKIE, token, 3600);
      return sendHtml(reply, signedOutPage({ title: 'Sign in', body: signInForm(token), error }), status);
    };
    if (!csrfMatches(formToken, request.body)) return again(403, 'The sign-in form expired or came from another site; try again.');

    const decision = await platform.limiter.consume(`ip:${request.ip}`, platform.anonymousRateLimit, platform.clock.now().getTime());
    if (!decision.allowed) {
      reply.header('retry-after', String(decision.retryAfterSeconds));
      return again(429, `Too many attempts from your address; try again in ${decision.retryAfterSeconds} s.`);
    }
    const result = await sessions.signIn(field(request.body, 'key') ?? '', request.ip);
    if ('refused' in result) return again(401, result.refused);

    clearCookie(request, reply, SIGN_IN_COOKIE);
    setCookie(request, reply, SESSION_COOKIE, result.token, SESSION_HOURS * 3600);
    return reply.code(303).header('location', '/console').send();
  });
}

export function signOutRoute(scope: FastifyInstance, sessions: ConsoleSessions): void {
  scope.post('/sign-out', async (request, reply) => {
    await sessions.signOut(request.consoleSession.id);
    clearCookie(request, reply, SESSION_COOKIE);
    return reply.code(303).header('location', '/console/sign-in').send();
  });
}
