// Lets this process (or worker thread: threads do not inherit hooks registered through
// node:module) import the `.ts` sources directly: bin/switchboard.js and the worker entries
// call it before their first TypeScript import. In the test mirror (.build/, where every
// source is already JavaScript) scripts/build-mirror.mjs replaces it with a no-op.
import { register } from 'node:module';

export function loadTypeScript() {
  register('./typescript-hooks.mjs', import.meta.url);
  process.setSourceMapsEnabled(true);
}
