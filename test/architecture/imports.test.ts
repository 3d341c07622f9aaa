// The import rules of docs/architecture.md, checked on every import line of src/ (static,
// dynamic and type-only imports alike, as the TypeScript scanner reads them):
//
//   telephony/ (the kernel) and media/ import nothing above them;
//   carriers/ import no module (src/modules, the app, the CLI);
//   platform/, store/, jobs/ and events/ import no module and no carrier, except the table
//     registry store/tables.ts, which gathers every `tables.ts` (types only) into one schema;
//   a module imports from carriers/ only their public entry, carriers/index.ts;
//   no file reaches itself through its imports (no cycles).
//
// KNOWN lists what still breaks a rule: empty since issue 23's step landed. The test fails
// on a new violation and on a KNOWN entry that no longer occurs, so an entry can only be
// added on purpose and is removed by the change that fixes it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const KNOWN: string[] = [];

const ROOT = resolve(import.meta.dirname, '../..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.m?ts$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every file of src/ and the files of src/ it imports (relative specifiers only: packages are not ours). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sources(join(ROOT, 'src'))) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles.map((i) => i.fileName).filter((s) => s.startsWith('.'))
      .map((s) => relative(ROOT, resolve(dirname(file), s)));
    graph.set(relative(ROOT, file), [...new Set(targets)]);
  }
  return graph;
}

/** The top-level directory under src/ a file belongs to ('app.ts' and the like for files at the root). */
const area = (file: string) => file.split('/')[1]!;

/** Why `from` may not import `to`, or null when it may. */
export function brokenRule(from: string, to: string): string | null {
  const [a, b] = [area(from), area(to)];
  if ((a === 'telephony' || a === 'media') && !['telephony', 'media', 'store'].includes(b)) return `${a}/ imports only telephony/, media/ and store/`;
  if (a === 'media' && b !== 'media') return 'media/ imports nothing above it';
  if (a === 'carriers' && (b === 'modules' || b === 'cli' || b === 'app.ts' || b === 'main.ts')) return 'carriers import no module';
  if (['platform', 'store', 'jobs', 'events'].includes(a) && (b === 'modules' || b === 'carriers')) {
    if (from === 'src/store/tables.ts' && to.endsWith('/tables.ts')) return null;
    return `${a}/ imports no module and no carrier`;
  }
  if (a === 'modules' && b === 'carriers' && to !== 'src/carriers/index.ts') return 'modules import carriers only through src/carriers/index.ts';
  return null;
}

/** Strongly connected components of more than one file (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

test('imports follow the layering of docs/architecture.md; KNOWN holds exactly what still breaks it', () => {
  const graph = importGraph();
  assert.ok(graph.size > 100, 'the scanner found src/');
  const violations: string[] = [];
  const why: string[] = [];
  for (const [from, targets] of graph) {
    for (const to of targets) {
      const rule = brokenRule(from, to);
      if (rule) {
        violations.push(`${from} -> ${to}`);
        why.push(`${from} -> ${to}: ${rule}`);
      }
    }
  }
  for (const component of cycles(graph)) violations.push(`cycle: ${component.join(' ')}`);
  const added = violations.filter((v) => !KNOWN.includes(v));
  const gone = KNOWN.filter((v) => !violations.includes(v));
  assert.deepEqual(added, [], `new violations (fix them; do not list them):\n${added.map((v) => why.find((w) => w.startsWith(v)) ?? v).join('\n')}`);
  assert.deepEqual(gone, [], `fixed, so remove them from KNOWN:\n${gone.join('\n')}`);
});

test('the rules themselves: what each layer may import', () => {
  assert.equal(brokenRule('src/carriers/sip/live-carrier.ts', 'src/modules/calls/tables.ts'), 'carriers import no module');
  assert.equal(brokenRule('src/modules/calls/index.ts', 'src/carriers/index.ts'), null);
  assert.equal(brokenRule('src/modules/calls/index.ts', 'src/carriers/sip/live-carrier.ts'), 'modules import carriers only through src/carriers/index.ts');
  assert.equal(brokenRule('src/modules/calls/service.ts', 'src/telephony/call-ref.ts'), null);
  assert.equal(brokenRule('src/telephony/call-ref.ts', 'src/modules/calls/tables.ts'), 'telephony/ imports only telephony/, media/ and store/');
  assert.equal(brokenRule('src/platform/auth.ts', 'src/modules/accounts/plans.ts'), 'platform/ imports no module and no carrier');
  assert.equal(brokenRule('src/store/tables.ts', 'src/modules/calls/tables.ts'), null);
  assert.equal(brokenRule('src/store/db.ts', 'src/modules/calls/service.ts'), 'store/ imports no module and no carrier');
});
