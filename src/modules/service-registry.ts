// The services modules publish for each other, as a checked registry instead of a bag cast to
// its full type: modules register in dependency order (src/modules/index.ts), so reading a
// service no module has published yet is a wiring mistake, named at start-up where it
// happens (MissingServiceError), never an `undefined` found on the first request. A service
// is published once; publishing it twice is a mistake too.
import type { Services } from './services.ts';

export class MissingServiceError extends Error {
  constructor(name: string) {
    super(`composition: the "${name}" service was read before any module published it (order the modules in src/modules/index.ts so that its publisher registers first)`);
    this.name = 'MissingServiceError';
  }
}

/** A Services object that starts with `initial` and takes each other service once, as modules publish them. */
export function createServiceRegistry(initial: Partial<Services>): Services {
  const published: Partial<Services> = { ...initial };
  return new Proxy(published, {
    get(target, name) {
      if (typeof name !== 'string' || name in target) return Reflect.get(target, name);
      // Promise-likes probe for `then`; tooling inspects symbols and toJSON: absent, not missing.
      if (name === 'then' || name === 'toJSON') return undefined;
      throw new MissingServiceError(name);
    },
    set(target, name, value) {
      if (typeof name === 'string' && name in target) throw new Error(`composition: the "${name}" service was published twice`);
      return Reflect.set(target, name, value);
    },
  }) as Services;
}
