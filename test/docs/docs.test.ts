// The docs are part of the product: these checks keep them true to the code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { renderErrorDocs } from '../../scripts/generate-error-docs.ts';
import { EVENT_TYPES } from '../../src/events/catalogue.ts';

const read = (p: string) => readFileSync(new URL(`../../${p}`, import.meta.url), 'utf8');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

test('docs/errors.md lists the problem catalogue exactly (npm run docs:errors)', () => {
  assert.equal(read('docs/errors.md'), renderErrorDocs());
});

test('docs/webhooks.md names every event type', () => {
  const doc = read('docs/webhooks.md');
  const missing = Object.keys(EVENT_TYPES).filter((type) => !doc.includes(`\`${type}\``));
  assert.deepEqual(missing, []);
});

test('the README settings table lists every environment variable the code reads', () => {
  const readme = read('README.md');
  const used = new Set<string>();
  for (const file of sources(new URL('../../src', import.meta.url).pathname)) {
    for (const m of readFileSync(file, 'utf8').matchAll(/['"`](SWITCHBOARD_[A-Z0-9_]+|DATABASE_URL)['"`]/g)) used.add(m[1]!);
  }
  assert.ok(used.size > 10);
  const missing = [...used].filter((name) => !readme.includes(`\`${name}\``));
  assert.deepEqual(missing, []);
});

test('the Quick start is two commands', () => {
  const readme = read('README.md');
  assert.match(readme, /npm install && npm start/);
  assert.match(readme, /\nnpm test\n/);
});
