// The console's cookies. HttpOnly (scripts never see the token), SameSite=Strict (no other site
// can make the browser send it), Path=/console (the API never receives it), Secure whenever the
// request came over HTTPS (directly, or through a trusted proxy: request.protocol).
import type { FastifyReply, FastifyRequest } from 'fastify';

export const SESSION_COOKIE = 'sb_console';
/** Before sign-in: the double-submit token that the sign-in form must send back. */
export const SIGN_IN_COOKIE = 'sb_console_signin';

export function readCookie(request: FastifyRequest, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export function setCookie(request: FastifyRequest, reply: FastifyReply, name: string, value: string, maxAgeSeconds: number): void {
  const attributes = [`${name}=${value}`, 'Path=/console', 'HttpOnly', 'SameSite=Strict', `Max-Age=${maxAgeSeconds}`];
  if (request.protocol === 'https') attributes.push('Secure');
  reply.header('set-cookie', [...cookiesSet(reply), attributes.join('; ')]);
}

export function clearCookie(request: FastifyRequest, reply: FastifyReply, name: string): void {
  setCookie(request, reply, name, '', 0);
}

function cookiesSet(reply: FastifyReply): string[] {
  const existing = reply.getHeader('set-cookie');
  return existing === undefined ? [] : [existing].flat().map(String);
}
