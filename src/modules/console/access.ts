// What a signed-in request may do, decided by its key's scopes (the same rule as the API's:
// platform/scopes.ts), and the caller shapes the services take, built from the session.
import { grants, type Scope } from '../../platform/scopes.ts';
import { Problem } from '../../platform/problems.ts';
import type { ConsoleSession } from './sessions.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the console's session hook on every signed-in console route. */
    consoleSession: ConsoleSession;
  }
}

export function may(session: ConsoleSession, scope: Scope): boolean {
  return grants(session.scopes, scope);
}

export function requireScope(session: ConsoleSession, scope: Scope): void {
  if (!may(session, scope)) {
    throw new Problem('insufficient_scope', `This page needs the "${scope}" scope, which key ${session.keyName} does not have.`, { extensions: { required_scope: scope } });
  }
}

/** The caller of the calls, recordings and messages services. */
export function caller(session: ConsoleSession) {
  return { account: session.account, mode: session.mode, clock: session.clock };
}

/** The owner/caller of the webhooks and AI services. */
export function owner(session: ConsoleSession) {
  return { accountId: session.account.id, mode: session.mode, clock: session.clock };
}
