// Issue 10.4: a webhook for each state change (spec section 6). The audit reads every state
// table under src/ (any module exporting TRANSITIONS) and fails when a state has no event of
// the catalogue, so a new state, or a new state table, without an event breaks the build.
// Then the two events this point added reach a real receiver on 127.0.0.1, through HTTP.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { EVENT_TYPES } from '../../src/events/catalogue.ts';
import { importSource } from '../helpers/import-source.ts';
import { useSandboxAccount } from '../helpers/sandbox-account.ts';
import { MAGIC, ORDINARY, eventsOf } from '../voice/voice-helpers.ts';

const SRC = new URL('../../src', import.meta.url).pathname;
const ROOT = new URL('../..', import.meta.url).pathname;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

interface StateModule {
  TRANSITIONS: Record<string, readonly string[] | Record<string, string | null>>;
  STATE_EVENTS?: Record<string, string>;
  EVENTLESS_BECAUSE?: string;
}

/**
 * What is wrong with one state table: a state without an event of the catalogue. Two forms:
 * a list of next states per state, with STATE_EVENTS naming the event each state emits when
 * entered; or, per state, the event each move emits (recordings: a resume is not a start).
 */
export function stateEventGaps(mod: StateModule, catalogue: Record<string, string> = EVENT_TYPES): string[] {
  const gaps: string[] = [];
  const states = Object.keys(mod.TRANSITIONS);
  const known = (type: unknown) => typeof type === 'string' && Object.hasOwn(catalogue, type);
  for (const [from, next] of Object.entries(mod.TRANSITIONS)) {
    if (Array.isArray(next)) {
      for (const to of next) if (!states.includes(to)) gaps.push(`${from} -> ${to}: ${to} is not a state of the table`);
      continue;
    }
    for (const [to, type] of Object.entries(next)) {
      if (!states.includes(to)) gaps.push(`${from} -> ${to}: ${to} is not a state of the table`);
      if (!known(type)) gaps.push(`${from} -> ${to} emits ${String(type)}, not an event of the catalogue`);
    }
  }
  const listForm = Object.values(mod.TRANSITIONS).every(Array.isArray);
  if (listForm) {
    if (!mod.STATE_EVENTS) return [...gaps, 'exports TRANSITIONS but no STATE_EVENTS (nor EVENTLESS_BECAUSE)'];
    for (const state of states) {
      if (!known(mod.STATE_EVENTS[state])) gaps.push(`${state} emits ${String(mod.STATE_EVENTS[state])}, not an event of the catalogue`);
    }
    for (const extra of Object.keys(mod.STATE_EVENTS).filter((s) => !states.includes(s))) gaps.push(`STATE_EVENTS names ${extra}, not a state of the table`);
  }
  return gaps;
}

/** Every module under src/ that exports a state table, by path relative to the repository. */
async function stateTables(): Promise<Map<string, StateModule>> {
  const found = new Map<string, StateModule>();
  for (const file of sources(SRC)) {
    if (!/^export const TRANSITIONS\b/m.test(readFileSync(file, 'utf8'))) continue;
    found.set(relative(ROOT, file), await importSource(file) as StateModule);
  }
  return found;
}

describe('issue 10.4: every state of every resource has its event (the audit)', () => {
  test('every state table under src/ names an event of the catalogue for each state', async () => {
    const tables = await stateTables();
    // The audit must see the tables it is meant to guard; a broken discovery would pass anything.
    for (const path of [
      'src/modules/calls/states.ts', 'src/modules/calls/transfer-states.ts', 'src/modules/messages/states.ts',
      'src/modules/recordings/states.ts', 'src/modules/ports/states.ts', 'src/modules/numbers/states.ts',
      'src/modules/ai/agents/states.ts', 'src/modules/ai/conversations/states.ts', 'src/modules/webhooks/states.ts',
    ]) assert.ok(tables.has(path), `${path} is found as a state table`);

    const gaps: string[] = [];
    const eventless: string[] = [];
    for (const [path, mod] of tables) {
      if (mod.EVENTLESS_BECAUSE !== undefined) {
        eventless.push(path);
        assert.ok(mod.EVENTLESS_BECAUSE.length > 40, `${path} says why it has no events`);
        continue;
      }
      gaps.push(...stateEventGaps(mod).map((gap) => `${path}: ${gap}`));
    }
    assert.deepEqual(gaps, []);
    // Webhook deliveries are exempt (an event about a delivery would loop), and queue members
    // (a member is a call's stay in a queue, told through the call's call.queue.joined/left);
    // a new exemption is a decision, made here.
    assert.deepEqual(eventless.sort(), ['src/modules/queues/states.ts', 'src/modules/webhooks/states.ts']);
  });

  test('the recording processing and transfer pending states have their events', async () => {
    const tables = await stateTables();
    const recordings = tables.get('src/modules/recordings/states.ts')!.TRANSITIONS as Record<string, Record<string, string>>;
    assert.equal(recordings.stopped!.processing, 'call.recording.processing');
    assert.equal(tables.get('src/modules/calls/transfer-states.ts')!.STATE_EVENTS!.pending, 'call.transfer_started');
  });

  test('the audit fails on a state without an event, an unknown event, or a table without STATE_EVENTS', () => {
    const table = { a: ['b'], b: [] };
    assert.deepEqual(stateEventGaps({ TRANSITIONS: table, STATE_EVENTS: { a: 'call.queued', b: 'call.completed' } }), []);
    assert.deepEqual(stateEventGaps({ TRANSITIONS: table, STATE_EVENTS: { a: 'call.queued' } }), ['b emits undefined, not an event of the catalogue']);
    assert.deepEqual(stateEventGaps({ TRANSITIONS: table, STATE_EVENTS: { a: 'call.queued', b: 'call.vanished' } }), ['b emits call.vanished, not an event of the catalogue']);
    assert.deepEqual(stateEventGaps({ TRANSITIONS: table }), ['exports TRANSITIONS but no STATE_EVENTS (nor EVENTLESS_BECAUSE)']);
    assert.deepEqual(stateEventGaps({ TRANSITIONS: { a: { b: null }, b: {} } }), ['a -> b emits null, not an event of the catalogue']);
  });
});

describe('issue 10.4: the new events reach a real webhook receiver', () => {
  const sandbox = useSandboxAccount();
  const api = sandbox.api;

  async function callInProgress() {
    const res = await api().post('/v1/calls', { from: sandbox.from, to: MAGIC.staysUp, record: false });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    await sandbox.receiver.waitForEvent('call.answered', res.body.id);
    return res.body;
  }

  test('a transfer entering pending emits call.transfer_started, before its outcome', async () => {
    const call = await callInProgress();
    const res = await api().post(`/v1/calls/${call.id}/transfer`, { to: ORDINARY });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const started = await sandbox.receiver.waitForEvent('call.transfer_started', call.id);
    assert.equal(started.data.object.status, 'in_progress');
    assert.deepEqual(started.data.object.transfers.map((x: any) => [x.to, x.status]), [[ORDINARY, 'pending']]);
    await sandbox.receiver.waitForEvent('call.transferred', call.id);
    const types = eventsOf(sandbox.receiver, call.id).map((e) => e.type);
    assert.ok(types.indexOf('call.transfer_started') < types.indexOf('call.transferred'), types.join(', '));

    // A transfer the target refuses: started, then failed, and the call stays up.
    const refused = await callInProgress();
    await api().post(`/v1/calls/${refused.id}/transfer`, { to: MAGIC.rejectsTransfers });
    await sandbox.receiver.waitForEvent('call.transfer_failed', refused.id);
    const refusedTypes = eventsOf(sandbox.receiver, refused.id).map((e) => e.type);
    assert.deepEqual(refusedTypes.slice(-2), ['call.transfer_started', 'call.transfer_failed']);
    assert.equal((await api().post(`/v1/calls/${refused.id}/hangup`)).status, 200);
  });

  test('a recording entering processing emits call.recording.processing, between stopped and ready', async () => {
    const call = await callInProgress();
    const started = await api().post(`/v1/calls/${call.id}/recordings`, {});
    assert.equal(started.status, 200, JSON.stringify(started.body));
    const id = started.body.id;
    assert.equal((await api().post(`/v1/recordings/${id}/stop`)).status, 200);
    const processing = await sandbox.receiver.waitForEvent('call.recording.processing', id);
    assert.equal(processing.data.object.status, 'processing');
    assert.equal(processing.data.object.call_id, call.id);
    await sandbox.receiver.waitForEvent('call.recording.ready', id);
    assert.deepEqual(eventsOf(sandbox.receiver, id).map((e) => e.type), [
      'call.recording.started', 'call.recording.stopped', 'call.recording.processing', 'call.recording.ready',
    ]);
    const stored = await api().get(`/v1/events?object_id=${id}&type=call.recording.processing`);
    assert.equal(stored.status, 200);
    assert.equal(stored.body.data.length, 1, 'the event is stored and listed too');
    assert.equal((await api().post(`/v1/calls/${call.id}/hangup`)).status, 200);
  });
});
