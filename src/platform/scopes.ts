// Scopes are `<resource>:read` and `<resource>:write`, plus `*` for everything.
// `write` includes `read` of the same resource, as with Stripe's restricted keys.
export const RESOURCES = [
  'account', 'keys', 'calls', 'recordings', 'messages', 'numbers', 'ai', 'webhooks', 'events', 'sandbox',
] as const;

export type ScopeResource = (typeof RESOURCES)[number];
export type Scope = '*' | `${ScopeResource}:read` | `${ScopeResource}:write`;

export const ALL_SCOPES: Scope[] = ['*', ...RESOURCES.flatMap((r) => [`${r}:read`, `${r}:write`] as Scope[])];

export function isScope(value: string): value is Scope {
  return (ALL_SCOPES as string[]).includes(value);
}

export function grants(held: readonly string[], needed: Scope): boolean {
  if (held.includes('*') || held.includes(needed)) return true;
  if (needed.endsWith(':read')) return held.includes(needed.replace(/:read$/, ':write'));
  return false;
}

/**
 * The scopes in `requested` that `held` does not cover: a key may grant, widen to, rotate or
 * otherwise manage only keys within its own rights. `*` is covered only by `*` itself.
 */
export function scopesBeyond(requested: readonly string[], held: readonly string[]): string[] {
  return requested.filter((s) => (s === '*' ? !held.includes('*') : !isScope(s) || !grants(held, s)));
}
