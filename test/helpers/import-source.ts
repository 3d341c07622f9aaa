// Imports a module of the checkout named by its .ts path, in either kind of test run. In the
// precompiled run (scripts/build-mirror.mjs) the .ts beside the test is the source, kept for
// the audits that read it as text, and only its compiled .js twin loads without tsx.
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

export function importSource(path: string): Promise<unknown> {
  const compiled = path.replace(/\.ts$/, '.js');
  return import(pathToFileURL(existsSync(compiled) ? compiled : path).href);
}
