// CSRF: every console form carries a token that a page of another site cannot know. Signed in,
// it is the session's token; before sign-in, the sign-in cookie's (double submit). SameSite=Strict
// already keeps the cookie off cross-site requests: the token holds even where a browser
// ignores SameSite.
import { constantTimeEqual } from '../../platform/secrets.ts';
import { html, type Html } from './html.ts';

export const CSRF_FIELD = '_csrf';

export function csrfField(token: string): Html {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${token}">`;
}

export function csrfMatches(expected: string | undefined, body: unknown): boolean {
  const sent = (body as Record<string, unknown> | undefined)?.[CSRF_FIELD];
  return typeof expected === 'string' && expected !== '' && typeof sent === 'string' && constantTimeEqual(sent, expected);
}
