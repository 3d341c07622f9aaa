// Node module hooks that run the TypeScript sources as they are (registered by
// load-typescript.mjs): a `.ts` file is transpiled by esbuild when it is loaded, types
// stripped, nothing checked (`npm run typecheck` checks them).
//
// Why not tsx, which the tests and benches still use: tsx transpiles with esbuild's
// `keepNames`, which wraps every function expression given a name in a call that redefines
// its `name` property. A closure made per request (a route's `const present = (...) => ...`,
// a query's `settled` callback) then costs that property redefinition, about a microsecond,
// each time: 27 per POST /v1/messages and 56 per POST /v1/calls were counted. Without
// identifier minification (tsx does not minify identifiers either), the names are the
// sources' own anyway, so `keepNames` bought nothing here.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return nextLoad(url, context);
  const path = fileURLToPath(url);
  const { code } = await transform(await readFile(path, 'utf8'), {
    loader: 'ts',
    format: 'esm',
    target: `node${process.versions.node}`,
    sourcemap: 'inline', // stack traces name the .ts lines (source maps are enabled on registration)
    sourcefile: path,
  });
  return { format: 'module', source: code, shortCircuit: true };
}
