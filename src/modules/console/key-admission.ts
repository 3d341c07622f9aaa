// Whether an API key may open (or keep) a console session. The API's auth hook
// (platform/auth.ts) makes the same decisions per request on its hot path, where it answers
// problems; the console needs a sentence for a page instead, so the few rules are stated here.
import { ipAllowed } from '../../platform/auth.ts';
import type { AccountRow, ApiKeyRow } from '../../store/platform-tables.ts';

/** Why the key may not be used now, or null when it may. Never mentions the secret. */
export function keyRefusal(key: ApiKeyRow, account: AccountRow, now: Date, ip: string): string | null {
  if (key.status === 'revoked') return 'This API key was revoked.';
  if (key.expires_at !== null && key.expires_at <= now.toISOString()) return 'This API key expired after being rotated; sign in with its replacement.';
  if (!ipAllowed(key.allowed_ips, ip)) return `This API key may not be used from ${ip}.`;
  if (key.mode === 'live' && account.plan === 'trial' && account.trial_ends_at !== null && account.trial_ends_at <= now.toISOString()) {
    return 'The trial has ended: live keys stop working until a plan is chosen; sandbox keys keep working.';
  }
  return null;
}
