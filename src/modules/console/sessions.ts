// Console sessions: signing in with an API key opens a server-side session; the browser holds
// only a random token (in an HttpOnly cookie), the database only its SHA-256. Every request
// re-reads the session's key, so a key that is revoked, expires or loses scopes changes the
// session at once: a session whose key can no longer be used is deleted (signed out).
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Tables } from '../../store/tables.ts';
import type { AccountRow, ApiKeyRow, Mode } from '../../store/platform-tables.ts';
import { offsetClock, type Clock } from '../../platform/clock.ts';
import { sha256Hex, KEY_BODY_LENGTH } from '../../platform/secrets.ts';
import { keyRefusal } from './key-admission.ts';

/** Long enough for a working day; a new sign-in is needed after it. */
export const SESSION_HOURS = 8;

const KEY_PATTERN = new RegExp(`^sb_(test|live)_[0-9A-Za-z]{${KEY_BODY_LENGTH}}$`);

/** Who is signed in, as every console page sees it: the same fields services take from request.auth. */
export interface ConsoleSession {
  id: string;
  csrfToken: string;
  account: AccountRow;
  mode: Mode;
  keyId: string;
  keyName: string;
  keyRedacted: string;
  scopes: string[];
  /** The account's clock in this mode (a sandbox test clock included). */
  clock: Clock;
  expiresAt: string;
}

export type SignInResult = { token: string; session: ConsoleSession } | { refused: string };

export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

export class ConsoleSessions {
  constructor(private readonly db: Kysely<Tables>, private readonly clock: Clock) {}

  async signIn(secret: string, ip: string): Promise<SignInResult> {
    const unknown = { refused: 'No API key matches the one entered.' };
    if (!KEY_PATTERN.test(secret)) return unknown;
    const key = await this.db.selectFrom('api_keys').selectAll().where('secret_hash', '=', sha256Hex(secret)).executeTakeFirst();
    if (!key) return unknown;
    const account = await this.db.selectFrom('accounts').selectAll().where('id', '=', key.account_id).executeTakeFirstOrThrow();
    const now = this.clock.now();
    const refused = keyRefusal(key, account, now, ip);
    if (refused) return { refused };
    const token = newToken();
    const row = {
      id: sha256Hex(token),
      account_id: key.account_id,
      key_id: key.id,
      csrf_token: newToken(),
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + SESSION_HOURS * 3600_000).toISOString(),
    };
    await this.db.insertInto('console_sessions').values(row).execute();
    const session = await this.resolve(token, ip);
    if (!session) return { refused: 'The session could not be opened; try again.' };
    return { token, session };
  }

  /** The live session of a cookie token, or null (unknown, expired, or its key unusable: then deleted). */
  async resolve(token: string, ip: string): Promise<ConsoleSession | null> {
    const id = sha256Hex(token);
    const row = await this.db.selectFrom('console_sessions as s')
      .innerJoin('api_keys as k', 'k.id', 's.key_id')
      .innerJoin('accounts as a', 'a.id', 's.account_id')
      .leftJoin('sandbox_clocks as c', (j) => j.onRef('c.account_id', '=', 's.account_id').on('k.mode', '=', 'sandbox'))
      .select(['s.id', 's.csrf_token', 's.expires_at as session_expires_at', 'c.offset_ms'])
      .selectAll('k')
      .select(['a.name as a_name', 'a.plan as a_plan', 'a.rate_limit_per_minute as a_rate', 'a.concurrent_calls_limit as a_concurrent',
        'a.trial_ends_at as a_trial_ends_at', 'a.created_at as a_created_at', 'a.updated_at as a_updated_at'])
      .where('s.id', '=', id)
      .executeTakeFirst();
    if (!row) return null;
    const now = this.clock.now();
    const account: AccountRow = {
      id: row.account_id, name: row.a_name, plan: row.a_plan, rate_limit_per_minute: row.a_rate,
      concurrent_calls_limit: row.a_concurrent, trial_ends_at: row.a_trial_ends_at, created_at: row.a_created_at, updated_at: row.a_updated_at,
    };
    const key = row as unknown as ApiKeyRow;
    if (row.session_expires_at <= now.toISOString() || keyRefusal(key, account, now, ip) !== null) {
      await this.db.deleteFrom('console_sessions').where('id', '=', id).execute();
      return null;
    }
    const offset = row.offset_ms === null ? 0 : Number(row.offset_ms);
    return {
      id, csrfToken: row.csrf_token, account, mode: key.mode, keyId: key.id, keyName: key.name,
      keyRedacted: `${key.prefix}...${key.last4}`, scopes: JSON.parse(key.scopes) as string[],
      clock: offsetClock(this.clock, offset), expiresAt: row.session_expires_at,
    };
  }

  async signOut(sessionId: string): Promise<void> {
    await this.db.deleteFrom('console_sessions').where('id', '=', sessionId).execute();
  }

  /** Ends every session opened with a key (it was just revoked from the console). */
  async endSessionsOfKey(keyId: string): Promise<void> {
    await this.db.deleteFrom('console_sessions').where('key_id', '=', keyId).execute();
  }

  /** Expired sessions carry nothing; a periodic sweep keeps the table small. */
  async sweep(): Promise<void> {
    await this.db.deleteFrom('console_sessions').where('expires_at', '<=', this.clock.now().toISOString()).execute();
  }
}
