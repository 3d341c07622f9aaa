// The docs are part of the product: these checks keep them true to the code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { renderErrorDocs } from '../../scripts/generate-error-docs.ts';
import { EVENT_TYPES } from '../../src/events/catalogue.ts';
import { VERB_NAMES } from '../../src/modules/calls/flows/schema.ts';

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

test('issue 12: docs/voice-flows.md has every verb with an example, the webhook shapes, the limits and the same IVR in TwiML', () => {
  const doc = read('docs/voice-flows.md');
  for (const verb of VERB_NAMES) {
    const section = doc.split(`\n### ${verb}\n`)[1]?.split(/\n##+ /)[0];
    assert.ok(section, `a "### ${verb}" section`);
    assert.match(section, new RegExp(`\`\`\`json[\\s\\S]*"${verb}"`), `the ${verb} section has a JSON example using it`);
  }
  for (const heading of ['## Flow webhooks: what we send and what you answer', '## Limits', '## The same IVR in Switchboard and in TwiML']) {
    assert.ok(doc.includes(`\n${heading}\n`), heading);
  }
  assert.match(doc, /<Gather[\s\S]*<Dial/, 'the TwiML side has the gather and the dial');
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
