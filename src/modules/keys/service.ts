// API keys: scoped, per mode, hashed at rest, shown once, rotated with a grace period.
import { fetchPage, type PageInput } from '../../platform/pagination.ts';
import type { Kysely } from 'kysely';
import ipaddr from 'ipaddr.js';
import type { Tables } from '../../store/tables.ts';
import type { ApiKeyRow, Mode } from '../../store/platform-tables.ts';
import type { Clock } from '../../platform/clock.ts';
import { newId } from '../../platform/ids.ts';
import { newKeySecret, sha256Hex } from '../../platform/secrets.ts';
import { Problem, invalidField, notFound } from '../../platform/problems.ts';
import { isScope, scopesBeyond } from '../../platform/scopes.ts';
import { inTransaction } from '../../store/transaction.ts';

export const KEY_PREFIX: Record<Mode, string> = { sandbox: 'sb_test_', live: 'sb_live_' };
export const DEFAULT_ROTATION_GRACE_SECONDS = 24 * 60 * 60;

export interface ApiKey {
  id: string;
  object: 'api_key';
  name: string;
  mode: Mode;
  prefix: string;
  last4: string;
  /** e.g. "sb_test_...a1B2": enough to recognise a key, never enough to use it. */
  redacted: string;
  scopes: string[];
  allowed_ips: string[];
  status: 'active' | 'revoked' | 'expired';
  expires_at: string | null;
  rotated_from: string | null;
  created_at: string;
  revoked_at: string | null;
}

export function present(row: ApiKeyRow, now: Date): ApiKey {
  const expired = row.expires_at !== null && row.expires_at <= now.toISOString();
  return {
    id: row.id,
    object: 'api_key',
    name: row.name,
    mode: row.mode,
    prefix: row.prefix,
    last4: row.last4,
    redacted: `${row.prefix}...${row.last4}`,
    scopes: JSON.parse(row.scopes),
    allowed_ips: JSON.parse(row.allowed_ips),
    status: row.status === 'revoked' ? 'revoked' : expired ? 'expired' : 'active',
    expires_at: row.expires_at,
    rotated_from: row.rotated_from,
    created_at: row.created_at,
    revoked_at: row.revoked_at,
  };
}

/** A non-empty list of known scopes: an empty list is refused, never read as "everything". */
export function normaliseScopes(scopes: readonly string[]): string[] {
  if (scopes.length === 0) throw invalidField('scopes', 'List at least one scope; "*" (everything) must be asked for explicitly.', 'too_short');
  scopes.forEach((s, i) => {
    if (!isScope(s)) throw invalidField(`scopes.${i}`, `"${s}" is not a scope; use "*" or "<resource>:read|write".`, 'invalid_value');
  });
  return [...new Set(scopes)];
}

/** Refuses a change that would give or touch rights the calling key does not hold. */
function requireWithin(scopes: string[], caller: readonly string[] | undefined, what: string): void {
  if (!caller) return; // the operator (CLI, account creation) is not limited by a key
  const beyond = scopesBeyond(scopes, caller);
  if (beyond.length > 0) {
    throw new Problem('scope_not_held', `${what} needs ${beyond.map((s) => `"${s}"`).join(', ')}, which the calling key does not hold; a key can only grant or manage scopes it holds itself.`, {
      extensions: { scopes_not_held: beyond },
    });
  }
}

export function normaliseAllowedIps(ips: string[] | undefined): string[] {
  return (ips ?? []).map((raw, i) => {
    try {
      const [address, bits] = raw.includes('/') ? ipaddr.parseCIDR(raw) : [ipaddr.parse(raw), undefined];
      const prefix = bits ?? (address.kind() === 'ipv4' ? 32 : 128);
      return `${address.toString()}/${prefix}`;
    } catch {
      throw invalidField(`allowed_ips.${i}`, `"${raw}" is not an IPv4 or IPv6 address or CIDR range.`, 'invalid_format');
    }
  });
}

export interface CreateKeyInput {
  accountId: string;
  mode: Mode;
  name?: string | undefined;
  /** Default: the calling key's scopes (an operator without a key must name them). */
  scopes?: string[] | undefined;
  allowedIps?: string[] | undefined;
  rotatedFrom?: string | null;
  /** The scopes of the key making the request; undefined for the operator (CLI, sign-up). */
  callerScopes?: readonly string[] | undefined;
}

export class KeyService {
  /** `onChange` runs after any change to an existing key (the auth cache listens). */
  constructor(private readonly db: Kysely<Tables>, private readonly clock: Clock, private readonly onChange: () => void = () => {}) {}

  /** Returns the stored row and the secret, which exists only in this return value. */
  async create(db: Kysely<Tables>, input: CreateKeyInput): Promise<{ row: ApiKeyRow; secret: string }> {
    const requested = input.scopes ?? input.callerScopes;
    if (!requested) throw invalidField('scopes', 'Name the scopes of the new key.', 'required');
    const scopes = normaliseScopes(requested);
    requireWithin(scopes, input.callerScopes, 'The new key');
    const prefix = KEY_PREFIX[input.mode];
    const secret = newKeySecret(prefix);
    const row: ApiKeyRow = {
      id: newId('key'),
      account_id: input.accountId,
      mode: input.mode,
      name: input.name ?? `${input.mode} key`,
      secret_hash: sha256Hex(secret),
      prefix,
      last4: secret.slice(-4),
      scopes: JSON.stringify(scopes),
      allowed_ips: JSON.stringify(normaliseAllowedIps(input.allowedIps)),
      status: 'active',
      expires_at: null,
      rotated_from: input.rotatedFrom ?? null,
      created_at: this.clock.now().toISOString(),
      revoked_at: null,
    };
    await db.insertInto('api_keys').values(row).execute();
    return { row, secret };
  }

  /** `db` may be a transaction: on SQLite a read outside the open transaction would wait for it. */
  async get(accountId: string, mode: Mode, id: string, db: Kysely<Tables> = this.db): Promise<ApiKeyRow> {
    const row = await db.selectFrom('api_keys').selectAll()
      .where('id', '=', id).where('account_id', '=', accountId).where('mode', '=', mode).executeTakeFirst();
    if (!row) throw notFound('API key', id);
    return row;
  }

  async list(accountId: string, mode: Mode, page: PageInput): Promise<ApiKeyRow[]> {
    let q = this.db.selectFrom('api_keys').selectAll().where('account_id', '=', accountId).where('mode', '=', mode);
    return fetchPage(q, page);
  }

  /**
   * Rotation without downtime: a new key with the same name, scopes and allow-list; the old
   * one keeps working until `expires_at` (now + grace; 0 ends it at once).
   */
  async rotate(accountId: string, mode: Mode, id: string, graceSeconds = DEFAULT_ROTATION_GRACE_SECONDS, callerScopes?: readonly string[]) {
    return inTransaction(this.db, async (trx) => {
      const old = await this.get(accountId, mode, id, trx);
      requireWithin(JSON.parse(old.scopes), callerScopes, `Rotating key ${id}`);
      const now = this.clock.now();
      if (old.status === 'revoked') throw new Problem('key_already_revoked', `Key ${id} is revoked and cannot be rotated.`);
      if (old.expires_at !== null && old.expires_at <= now.toISOString()) {
        throw new Problem('invalid_state_transition', `Key ${id} has already expired; rotate its replacement instead.`);
      }
      const expiresAt = new Date(now.getTime() + graceSeconds * 1000).toISOString();
      await trx.updateTable('api_keys').set({ expires_at: expiresAt }).where('id', '=', id).execute();
      const created = await this.create(trx, {
        accountId, mode, name: old.name, scopes: JSON.parse(old.scopes), allowedIps: JSON.parse(old.allowed_ips), rotatedFrom: old.id, callerScopes,
      });
      return { ...created, previous: { ...old, expires_at: expiresAt } };
    }).finally(this.onChange);
  }

  async revoke(accountId: string, mode: Mode, id: string, callerKeyId: string, callerScopes?: readonly string[]): Promise<ApiKeyRow> {
    const row = await this.get(accountId, mode, id);
    requireWithin(JSON.parse(row.scopes), callerScopes, `Revoking key ${id}`);
    if (row.status === 'revoked') return row; // revoking twice is a no-op, so retries are safe
    if (id === callerKeyId) throw new Problem('cannot_revoke_current_key', 'Use another key to revoke this one, so you are never locked out by accident.');
    const now = this.clock.now().toISOString();
    await this.db.updateTable('api_keys').set({ status: 'revoked', revoked_at: now }).where('id', '=', id).execute();
    this.onChange();
    return { ...row, status: 'revoked', revoked_at: now };
  }

  async update(accountId: string, mode: Mode, id: string, patch: { name?: string | undefined; scopes?: string[] | undefined; allowedIps?: string[] | undefined }, callerScopes?: readonly string[]): Promise<ApiKeyRow> {
    const row = await this.get(accountId, mode, id);
    requireWithin(JSON.parse(row.scopes), callerScopes, `Changing key ${id}`);
    const set: Partial<ApiKeyRow> = {};
    if (patch.name !== undefined) set.name = patch.name;
    if (patch.scopes !== undefined) {
      const scopes = normaliseScopes(patch.scopes);
      requireWithin(scopes, callerScopes, `Giving key ${id} these scopes`);
      set.scopes = JSON.stringify(scopes);
    }
    if (patch.allowedIps !== undefined) set.allowed_ips = JSON.stringify(normaliseAllowedIps(patch.allowedIps));
    if (Object.keys(set).length > 0) await this.db.updateTable('api_keys').set(set).where('id', '=', id).execute();
    this.onChange();
    return { ...row, ...set };
  }
}
