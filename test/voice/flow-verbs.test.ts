// Issue 23.6: a flow verb is one file under src/modules/calls/flows/verbs/ and one line in
// its registry; nothing else in the flow machinery names a verb. The next verbs (conference,
// enqueue, dequeue, leave, stream) must each be one new file plus one registry line, so this
// checks the sources: every verb file is registered, the registry is what the published
// schema, the validator and GET /v1/calls/{id}/flow list, and the interpreter, validator,
// URL check and audio fetcher hold no verb name.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { VERBS, VERB_NAMES, definitionOf } from '../../src/modules/calls/flows/verbs/registry.ts';
import { FlowSchema, VERB_SCHEMAS } from '../../src/modules/calls/flows/schema.ts';
import { validateFlow } from '../../src/modules/calls/flows/validate.ts';
import { flowUrls } from '../../src/modules/calls/flows/flow-urls.ts';
import { audioUrlsOf } from '../../src/modules/calls/flows/flow-audio.ts';

const FLOWS = new URL('../../src/modules/calls/flows/', import.meta.url).pathname;
const VERB_DIR = join(FLOWS, 'verbs');
/** The files of verbs/ that are not verbs: the definition type, shared schema pieces, the registry. */
const NOT_VERBS = ['verb.ts', 'common.ts', 'registry.ts'];

describe('issue 23.6: one file per flow verb, one registry', () => {
  test('every verb file defines the verb it is named after, and the registry lists each once', () => {
    const files = readdirSync(VERB_DIR).filter((f) => f.endsWith('.ts') && !NOT_VERBS.includes(f)).map((f) => f.replace(/\.ts$/, '')).sort();
    assert.deepEqual([...VERB_NAMES].sort(), files, 'a verb file without its registry line, or a registry line without its file');
    assert.equal(new Set(VERB_NAMES).size, VERB_NAMES.length);
    for (const name of files) {
      const source = readFileSync(join(VERB_DIR, `${name}.ts`), 'utf8');
      assert.match(source, new RegExp(`name: '${name}'`), `${name}.ts defines the verb ${name}`);
    }
  });

  test('the published schema and the validator list the registry, in its order', () => {
    assert.deepEqual(VERB_NAMES, ['say', 'play', 'pause', 'gather', 'redirect', 'record', 'dial', 'transfer', 'agent', 'enqueue', 'dequeue', 'leave', 'conference', 'monitor', 'stream', 'hangup']);
    assert.deepEqual(Object.keys(VERB_SCHEMAS), VERB_NAMES);
    const titles = (FlowSchema as unknown as { items: { anyOf: Array<{ title: string }> } }).items.anyOf.map((s) => s.title);
    assert.deepEqual(titles, VERB_NAMES);
    const refused = validateFlow([{ teleport: { name: 'x' } }]);
    assert.equal(refused.ok, false);
    assert.match(!refused.ok ? refused.errors[0]!.message : '', new RegExp(`use one of: ${VERB_NAMES.join(', ')}`));
  });

  test('the flow machinery outside verbs/ names no verb', () => {
    const names = VERBS.map((v) => v.name).join('|');
    // A verb named in code: `'gather' in verb`, `state.transfer`, `name === 'dial'`, `case 'record'`.
    const naming = new RegExp(`'(${names})' in |\\.(${names})\\b(?!\\()|(name|verb) === '(${names})'|case '(${names})'`);
    for (const file of ['interpreter.ts', 'validate.ts', 'flow-urls.ts', 'flow-audio.ts', 'schema.ts', 'state.ts']) {
      const code = readFileSync(join(FLOWS, file), 'utf8').split('\n').filter((line) => !/^\s*(\/\/|\*|\/\*\*)/.test(line));
      const hits = code.filter((line) => naming.test(line));
      assert.deepEqual(hits, [], `${file} names a verb`);
    }
  });

  test('URLs and audio come from each verb\'s own hooks, with their JSON paths', () => {
    const checked = validateFlow([
      { say: { text: 'Hi' } },
      { gather: { action_url: 'https://example.com/a', prompts: [{ say: { text: 'Press 1' } }, { play: { url: 'https://example.com/p.wav' } }] } },
      { play: { url: 'https://example.com/q.wav' } },
      { redirect: { url: 'https://example.com/r' } },
      { dial: { to: '+14155550100', action_url: 'https://example.com/d' } },
      { hangup: {} },
    ]);
    assert.ok(checked.ok);
    assert.deepEqual(flowUrls(checked.verbs), [
      { field: 'flow[1].gather.action_url', url: 'https://example.com/a' },
      { field: 'flow[1].gather.prompts[1].play.url', url: 'https://example.com/p.wav' },
      { field: 'flow[2].play.url', url: 'https://example.com/q.wav' },
      { field: 'flow[3].redirect.url', url: 'https://example.com/r' },
      { field: 'flow[4].dial.action_url', url: 'https://example.com/d' },
    ]);
    assert.deepEqual(checked.verbs.map(audioUrlsOf), [[], ['https://example.com/p.wav'], ['https://example.com/q.wav'], [], [], []]);
    assert.deepEqual(checked.verbs.map((v) => definitionOf(v).name), ['say', 'gather', 'play', 'redirect', 'dial', 'hangup']);
  });
});
