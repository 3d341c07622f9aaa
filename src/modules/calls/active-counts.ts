// GET /v1/account shows the account's active calls on every request, and counting them was
// the one query on that hot path. Counts are cached per account and mode for a short TTL
// (SWITCHBOARD_KEY_CACHE_TTL_MS, as API keys are) and forgotten the moment this node commits
// a change to one of the account's calls: this node's changes show at once, another node's
// within the TTL. The concurrent-call cap never reads this cache; it counts in its transaction.
import type { Mode } from '../../store/platform-tables.ts';
import type { Trx } from '../../store/transaction.ts';
import { TtlCache } from '../../platform/ttl-cache.ts';

export class ActiveCallCounts {
  private readonly counts: TtlCache<number>;
  /** Bumped on every change, so a count read before a change is never cached after it. */
  private generation = 0;

  constructor(ttlMs: number, private readonly countNow: (accountId: string, mode: Mode) => Promise<number>) {
    this.counts = new TtlCache(ttlMs);
  }

  /** A cached count answers synchronously. */
  get(accountId: string, mode: Mode, nowMs: number): number | Promise<number> {
    const key = `${accountId}:${mode}`;
    return this.counts.get(key, nowMs) ?? this.load(key, accountId, mode, nowMs);
  }

  private async load(key: string, accountId: string, mode: Mode, nowMs: number): Promise<number> {
    const generation = this.generation;
    const count = await this.countNow(accountId, mode);
    if (generation === this.generation) this.counts.set(key, count, nowMs);
    return count;
  }

  /** A call of the account was created or changed status in `trx`: forget its count once that commits. */
  changed(trx: Trx, accountId: string, mode: Mode): void {
    trx.afterCommit(() => {
      this.generation++;
      this.counts.delete(`${accountId}:${mode}`);
    });
  }
}
