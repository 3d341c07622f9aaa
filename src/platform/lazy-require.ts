// A few packages cost every process a tenth of a second or more of CPU to load (undici's
// 95 modules, the YAML parser, ws), yet most processes (a sandbox-only server, a CLI
// command, a test file's server) use them late or never. Their users take the type from a
// type-only import and the value from here, loaded on first use.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** A getter for package `specifier`, required the first time it is called. */
export function lazyRequire<T>(specifier: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(specifier) as T);
}
