#!/usr/bin/env node
// npm run sdks:test [-- node python go]: runs each SDK's own test suite. Every suite starts a
// real Switchboard server (sdks/testkit/serve.ts) on 127.0.0.1, over SQLite or, when
// DATABASE_URL is set, PostgreSQL.
import { spawnSync } from 'node:child_process';

const suites = {
  node: { cmd: process.execPath, args: ['--test', '--test-reporter=spec', 'test/'], cwd: 'sdks/node' },
  python: { cmd: process.env.PYTHON ?? 'python3', args: ['-m', 'unittest', 'discover', '-v', '-s', 'tests', '-t', '.'], cwd: 'sdks/python' },
  go: { cmd: 'go', args: ['test', '-count=1', '-v', './...'], cwd: 'sdks/go' },
};

const wanted = process.argv.slice(2).length > 0 ? process.argv.slice(2) : Object.keys(suites);
let failed = false;
for (const name of wanted) {
  const suite = suites[name];
  if (!suite) {
    console.error(`unknown SDK "${name}"; choose from ${Object.keys(suites).join(', ')}`);
    process.exit(2);
  }
  console.log(`== ${name} SDK tests`);
  const started = Date.now();
  const result = spawnSync(suite.cmd, suite.args, { cwd: suite.cwd, stdio: 'inherit', env: process.env });
  console.log(`== ${name} SDK tests ${result.status === 0 ? 'passed' : 'FAILED'} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  if (result.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
