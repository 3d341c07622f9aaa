// npm run sdks: regenerates the SDKs (sdks/node, sdks/python, sdks/go) and the request
// collections (collections/) from the OpenAPI document the server builds.
// npm run sdks:check: regenerates in memory and fails when any committed file differs, so
// the SDKs can never drift from the server (CI runs it).
import { mkdirSync, readdirSync, readFileSync, rmdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadOpenApiDocument } from '../openapi-document.ts';
import { buildModel } from './model.ts';
import { generatedFiles, staleFiles } from './outputs.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const check = process.argv.includes('--check');
const started = performance.now();

const document = await loadOpenApiDocument();
const loaded = performance.now();
const api = buildModel(document);
const files = generatedFiles(api, document);
const generated = performance.now();

const drifted: string[] = [];
for (const [path, content] of Object.entries(files)) {
  const target = join(root, path);
  let current: string | null = null;
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    current = null;
  }
  if (current === content) continue;
  if (check) drifted.push(path);
  else {
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, content);
    console.log(`wrote ${relative(root, target)}`);
  }
}

for (const path of staleFiles(root, files)) {
  if (check) drifted.push(`${path} (no longer generated)`);
  else {
    unlinkSync(join(root, path));
    console.log(`removed ${path}`);
    // Its folder goes too once empty (a renamed tag's folder).
    const folder = join(root, dirname(path));
    if (readdirSync(folder).length === 0) rmdirSync(folder);
  }
}

const ms = (a: number, b: number) => `${Math.round(b - a)} ms`;
console.log(`${Object.keys(files).length} files from ${api.operations.length} operations and ${api.models.length} models: `
  + `document ${ms(started, loaded)}, generation ${ms(loaded, generated)}`);
if (drifted.length > 0) {
  console.error(`These generated files differ from the OpenAPI document; run \`npm run sdks\` and commit:\n  ${drifted.join('\n  ')}`);
  process.exit(1);
}
