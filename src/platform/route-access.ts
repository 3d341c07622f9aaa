// Default-deny, decided when a route is registered: every route declares the scope it needs
// or `public: true`, and a route that declares neither is refused at startup. The handler of
// a non-public route is wrapped so that it cannot run without an authenticated caller, even
// if a hook were ever skipped: a handler without auth is impossible by construction.
import type { FastifyInstance, RouteOptions } from 'fastify';

const PUBLIC_CONTEXT = Symbol('switchboard.publicContext');

/** Routes registered in this (encapsulated) context are public: third-party plugins' pages. */
export function markPublic(instance: FastifyInstance): void {
  (instance as any)[PUBLIC_CONTEXT] = true;
}

/** Called from the root onRoute hook with the instance the route is registered on. */
export function requireAccessRule(instance: FastifyInstance, route: RouteOptions): void {
  const config = (route.config ?? {}) as { scope?: string; public?: boolean };
  if ((instance as any)[PUBLIC_CONTEXT] === true && !config.scope) {
    route.config = { ...config, public: true } as any;
    return;
  }
  if (config.public === true) return;
  if (!config.scope) throw new Error(`route ${String(route.method)} ${route.url} declares neither a scope nor public: true`);
  const handler = route.handler;
  route.handler = function authenticatedOnly(request, reply) {
    if (!request.auth) throw new Error(`${request.method} ${route.url} reached its handler without authentication`);
    return handler.call(this, request, reply);
  };
}
