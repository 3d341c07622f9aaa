// Small drift between the docs and the API, checked so it cannot come back (issue 22,
// defect 13): the message sample shows every field the API returns, in its order; every doc
// names the API key variable the same way; the live guides say what a loopback receiver needs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { MessageSchema } from '../../src/modules/messages/schema.ts';

const read = (p: string) => readFileSync(new URL(`../../${p}`, import.meta.url), 'utf8');

test('docs/messaging.md\'s send answer has exactly the Message fields, in the order the API returns them', () => {
  const section = read('docs/messaging.md').split('\n## Send\n')[1]!.split('\n## ')[0]!;
  const sample = /```json\n([\s\S]*?)\n```/.exec(section)?.[1];
  assert.ok(sample, 'a JSON sample under "## Send"');
  assert.deepEqual(Object.keys(JSON.parse(sample)), Object.keys(MessageSchema.properties));
});

test('the README and every guide call the API key $SB_KEY', () => {
  const files = ['README.md', ...readdirSync(new URL('../../docs', import.meta.url)).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
  const others = files.flatMap((file) => [...read(file).matchAll(/\$\{?SB\b(?!_KEY)\w*\}?|\bexport SB=/g)].map((m) => `${file}: ${m[0]}`));
  assert.deepEqual(others, []);
});

test('the live guides say that loopback and private webhook URLs need SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE', () => {
  for (const guide of ['docs/live-voice.md', 'docs/live-messaging.md']) {
    const doc = read(guide);
    assert.ok(doc.includes('`SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE=true`'), `${guide} names the setting`);
    assert.ok(doc.includes('webhook_url_not_allowed'), `${guide} names the refusal`);
  }
});
