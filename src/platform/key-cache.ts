// A short-lived, in-process cache of API-key lookups: the hot path (auth on every request)
// must not cost a database round trip. Entries live `ttlMs` (SWITCHBOARD_KEY_CACHE_TTL_MS,
// default 1 s); any change to keys, accounts or a sandbox test clock made through this
// process clears the cache at once, so a revocation through the API is immediate on the
// node that served it. Changes made elsewhere (another node, the CLI) are seen within ttlMs.
const MAX_ENTRIES = 10_000;

export class KeyCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();

  constructor(private readonly ttlMs: number) {}

  get(hash: string, nowMs: number): V | undefined {
    const entry = this.entries.get(hash);
    if (!entry) return undefined;
    if (entry.expiresAt <= nowMs) {
      this.entries.delete(hash);
      return undefined;
    }
    return entry.value;
  }

  set(hash: string, value: V, nowMs: number): void {
    if (this.ttlMs <= 0) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(hash, { value, expiresAt: nowMs + this.ttlMs });
  }

  clear(): void {
    this.entries.clear();
  }
}
