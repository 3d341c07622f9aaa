// The composition root's late-bound ports (src/platform/late-port.ts, src/modules/wiring.ts):
// a missing wire must fail at start with the port's name, never silently on a later call.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LatePort, UnfilledPortError, assertFilled } from '../../src/platform/late-port.ts';
import { MissingServiceError, createServiceRegistry } from '../../src/modules/service-registry.ts';
import type { Services } from '../../src/modules/services.ts';
import { allPorts, createWiring } from '../../src/modules/wiring.ts';

test('an unfilled port names itself when read, and the start check names every empty one', () => {
  const signals = new LatePort<string>('calls: call signals');
  const sinks = new LatePort<string>('recordings: recording sinks');
  assert.throws(() => signals.get(), (err: Error) => err instanceof UnfilledPortError && err.message.includes('"calls: call signals"'));
  assert.throws(() => signals.getter(), UnfilledPortError, 'the getter handed out before filling reads the same port');
  sinks.fill('sinks');
  assert.throws(() => assertFilled([signals, sinks]), (err: Error) => err.message.includes('"calls: call signals"') && !err.message.includes('recording sinks'));
  signals.fill('signals');
  assert.doesNotThrow(() => assertFilled([signals, sinks]));
  assert.equal(signals.getter(), 'signals');
});

test('a port is filled once', () => {
  const port = new LatePort<number>('queues: flow queues');
  port.fill(1);
  assert.throws(() => port.fill(2), /"queues: flow queues" was wired twice/);
  assert.equal(port.get(), 1);
});

test('the start check sees every port of the wiring, with distinct names', () => {
  const wiring = createWiring();
  const found: LatePort<unknown>[] = [];
  const walk = (value: unknown): void => {
    if (value instanceof LatePort) found.push(value);
    else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  walk(wiring);
  const checked = allPorts(wiring);
  assert.equal(checked.length, found.length);
  assert.ok(found.every((p) => checked.includes(p)), 'a port missing from allPorts would escape the start check');
  assert.equal(new Set(checked.map((p) => p.name)).size, checked.length);
  assert.throws(() => assertFilled(checked), (err: Error) => checked.every((p) => err.message.includes(`"${p.name}"`)));
});

test('a service read before any module published it is named, and one is published once', () => {
  const services = createServiceRegistry({});
  assert.throws(() => services.queues, (err: Error) => err instanceof MissingServiceError && /"queues" service was read before any module published it/.test(err.message));
  const published = { name: 'calls' } as unknown as Services['calls'];
  services.calls = published;
  assert.equal(services.calls, published);
  assert.throws(() => { services.calls = published; }, /"calls" service was published twice/);
  assert.equal((services as unknown as { then?: unknown }).then, undefined, 'not mistaken for a promise');
});
