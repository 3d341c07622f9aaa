// A short-lived, bounded, in-process cache: what the hot path reads on every request must
// not cost a database round trip. Two live in each node, both for SWITCHBOARD_KEY_CACHE_TTL_MS
// (default 1 s): API-key lookups (app.ts; any change to keys, accounts or a sandbox test
// clock made through this process clears it at once, so a revocation through the API is
// immediate on the node that served it) and active-call counts (modules/calls/active-counts.ts).
// Changes made elsewhere (another node, the CLI) are seen within the TTL.
const MAX_ENTRIES = 10_000;

export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();

  constructor(private readonly ttlMs: number) {}

  get(key: string, nowMs: number): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= nowMs) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: V, nowMs: number): void {
    if (this.ttlMs <= 0) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(key, { value, expiresAt: nowMs + this.ttlMs });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}
