#!/usr/bin/env node
// Builds .build/, a mirror of the checkout in which every TypeScript file of src/, test/,
// scripts/ and bench/ is also present as plain JavaScript, so the test run needs no loader
// hooks. Through tsx every test process (and every CLI or server process a test spawns)
// spent about 2.3 s of CPU loading its ~1,200 modules, one hook round trip each; the same
// modules precompiled load in a fraction of that. scripts/test.mjs runs it before each run.
//
// The mirror keeps every path a test or the server computes working:
// - foo.ts -> foo.js beside a symlink to foo.ts (the audits read the sources as text);
//   relative `.ts` specifiers become `.js`; transpile only (`npm run typecheck` checks types);
// - .mjs files and bin/*.js are copied through the same rewrite, and there
//   src/platform/load-typescript.mjs's loadTypeScript() is a no-op (bin/switchboard.js and the
//   worker entries register the TypeScript loader for the checkout; in the mirror everything
//   is already JavaScript, and a registered hook would cost every module load a round trip
//   to the hooks thread). A copy, not a symlink:
//   Node would follow a symlink and run the checkout's file, whose siblings are .ts;
// - every other file of those trees (SQL, JSON, HTML, audio, fixtures) is a symlink;
// - every other top-level entry (docs, sdks, collections, package.json, node_modules...)
//   is a symlink, so cwd-relative and import.meta.url-relative paths resolve as in the checkout.
// The checkout itself never runs the mirror: bin/switchboard.js there transpiles on load,
// so a developer cannot pick up a stale build. Incremental: only files whose size or mtime
// changed are compiled again; files gone from the checkout are removed from the mirror.
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import {
  existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync,
} from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const MIRROR = join(ROOT, '.build');
const COMPILED_TREES = ['src', 'test', 'scripts', 'bench', 'bin'];
const NOT_MIRRORED = new Set(['.git', '.build', ...COMPILED_TREES]);
const MANIFEST = join(MIRROR, '.manifest.json');

/** What a source becomes in the mirror: compiled, or linked to the checkout's file. */
function kindOf(path) {
  if (path.endsWith('.d.ts')) return 'link';
  if (path.endsWith('.ts')) return 'compile';
  if (path.endsWith('.mjs') || (path.startsWith('bin/') && path.endsWith('.js'))) return 'copy';
  return 'link';
}

function walk(dir, out = []) {
  for (const name of readdirSync(join(ROOT, dir))) {
    const path = `${dir}/${name}`;
    const stat = statSync(join(ROOT, path));
    if (stat.isDirectory()) walk(path, out);
    else out.push({ path, stamp: `${stat.size}:${stat.mtimeMs}` });
  }
  return out;
}

/** A symlink at `at` pointing (relatively) to `target`, replacing whatever was there. */
function link(target, at) {
  const wanted = relative(dirname(at), target);
  try {
    if (lstatSync(at).isSymbolicLink() && readlinkSync(at) === wanted) return;
    rmSync(at, { recursive: true, force: true });
  } catch { /* absent */ }
  mkdirSync(dirname(at), { recursive: true });
  symlinkSync(wanted, at);
}

/** Relative `.ts` imports point at the compiled `.js`; packages stay where they are. */
const rewriteImports = {
  name: 'rewrite-imports',
  setup(b) {
    b.onResolve({ filter: /(^|\/)load-typescript\.mjs$/ }, () => ({ path: 'load-typescript', namespace: 'noop' }));
    b.onLoad({ filter: /.*/, namespace: 'noop' }, () => ({ contents: 'export function loadTypeScript() {}', loader: 'js' }));
    b.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind === 'entry-point') return undefined;
      const relativeTs = /^\.{1,2}\//.test(args.path) && args.path.endsWith('.ts');
      return { path: relativeTs ? `${args.path.slice(0, -3)}.js` : args.path, external: true };
    });
  },
};

export async function buildMirror({ quiet = false } = {}) {
  const started = Date.now();
  // A change to this script or to esbuild invalidates every compiled file.
  const toolchain = createHash('sha256')
    .update(readFileSync(fileURLToPath(import.meta.url)))
    .update(readFileSync(join(ROOT, 'node_modules/esbuild/package.json')))
    .update(readFileSync(join(ROOT, 'tsconfig.json')))
    .digest('hex');
  let previous = { toolchain: '', files: {} };
  try { previous = JSON.parse(readFileSync(MANIFEST, 'utf8')); } catch { /* first build */ }
  if (previous.toolchain !== toolchain) previous = { toolchain, files: {} };

  mkdirSync(MIRROR, { recursive: true });
  for (const name of readdirSync(ROOT)) {
    if (!NOT_MIRRORED.has(name)) link(join(ROOT, name), join(MIRROR, name));
  }

  const sources = COMPILED_TREES.filter((dir) => existsSync(join(ROOT, dir))).flatMap((dir) => walk(dir));
  const files = {};
  const changed = [];
  for (const { path, stamp } of sources) {
    files[path] = stamp;
    const kind = kindOf(path);
    if (kind === 'compile') link(join(ROOT, path), join(MIRROR, path));
    if (kind === 'link') link(join(ROOT, path), join(MIRROR, path));
    else if (previous.files[path] !== stamp) changed.push(path);
  }
  // Files that left the checkout leave the mirror, with their compiled twin and its source map.
  for (const path of Object.keys(previous.files)) {
    if (files[path]) continue;
    rmSync(join(MIRROR, path), { force: true });
    if (kindOf(path) !== 'compile') continue;
    const compiled = join(MIRROR, path.replace(/\.ts$/, '.js'));
    rmSync(compiled, { force: true });
    rmSync(`${compiled}.map`, { force: true });
  }

  // .ts and bin's .js become .js; .mjs stay .mjs (the sources name them so).
  for (const ext of ['.js', '.mjs']) {
    const batch = changed.filter((path) => (path.endsWith('.mjs') ? '.mjs' : '.js') === ext);
    if (batch.length === 0) continue;
    await build({
      absWorkingDir: ROOT,
      entryPoints: batch.map((path) => ({ in: path, out: path.replace(/\.(ts|mjs|js)$/, '') })),
      outdir: MIRROR,
      outExtension: { '.js': ext },
      bundle: true, // only so that the plugin sees every import; each one stays external
      treeShaking: false,
      plugins: [rewriteImports],
      format: 'esm',
      platform: 'node',
      target: `node${process.versions.node}`,
      // No keepNames, as in bin/switchboard.js (src/platform/typescript-hooks.mjs says why).
      sourcemap: 'linked', // NODE_OPTIONS=--enable-source-maps maps stack traces to the .ts
      tsconfig: join(ROOT, 'tsconfig.json'),
      logLevel: 'error',
    });
  }
  writeFileSync(MANIFEST, JSON.stringify({ toolchain, files }));
  if (!quiet) console.log(`== .build/: ${changed.length} of ${sources.length} files compiled or copied in ${Date.now() - started} ms`);
  return MIRROR;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildMirror();
