// The per-request logger is made only when a line is written, and writes the same lines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { lazyChildLogger } from '../../src/platform/lazy-logger.ts';

test('a request logger is made on the first line written at an enabled level, with its bindings', () => {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({ write(chunk, _enc, done) { lines.push(JSON.parse(String(chunk))); done(); } });
  const parent = Fastify({ logger: { level: 'warn', stream } }).log;
  let made = 0;
  const child = parent.child.bind(parent);
  parent.child = ((...args: Parameters<typeof child>) => { made++; return child(...args); }) as typeof parent.child;

  const log = lazyChildLogger(parent, { reqId: 'req_1' }, {});
  log.info('below the level');
  log.debug('below the level');
  assert.equal(made, 0, 'nothing written, nothing made');
  assert.equal(log.level, 'warn');

  log.warn({ call: 'call_1' }, 'first line');
  log.error('second line');
  assert.equal(made, 1, 'made once, then reused');
  assert.deepEqual(lines.map((l) => [l.reqId, l.msg, l.level]), [['req_1', 'first line', 40], ['req_1', 'second line', 50]]);
  assert.equal(lines[0]!.call, 'call_1');

  // Route-level options (e.g. a logLevel) go straight to pino.
  lazyChildLogger(parent, { reqId: 'req_2' }, { level: 'debug' });
  assert.equal(made, 2);
});
