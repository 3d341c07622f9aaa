// Remembers every route's pattern so an unknown method on a known path answers 405 with
// an Allow header instead of a bare 404.
export class RouteTable {
  private readonly routes: Array<{ pattern: RegExp; method: string }> = [];

  add(url: string, methods: string | string[]): void {
    const pattern = new RegExp(
      '^' + url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z_]+/g, '[^/]+') + '/?$',
    );
    for (const method of [methods].flat()) {
      if (method !== 'HEAD') this.routes.push({ pattern, method });
    }
  }

  methodsFor(path: string): string[] {
    return [...new Set(this.routes.filter((r) => r.pattern.test(path)).map((r) => r.method))].sort();
  }
}
