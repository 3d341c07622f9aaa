#!/usr/bin/env node
// Runs the test files named on the command line, in that order, through node:test's run():
// `node --test` sorts its files by name, which would put the longest files last. Started by
// scripts/test.mjs as `node --import tsx scripts/run-test-files.mjs FILE...`; every file gets
// its own process, which inherits `--import tsx`. TEST_CONCURRENCY files run at once.
// TEST_NICE lowers the priority of this process and so of every file it starts (they inherit
// it): scripts/test.mjs runs the files that do not talk to live SIP peers that way, so they
// take only the CPU the timing-bound live-peer files leave.
// TEST_SUMMARY_FILE receives the run's totals as JSON, the failed tests' names and their files,
// for scripts/test.mjs to add up, to repeat at the end of the run, and to run again.
import { writeFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';

if (process.env.TEST_NICE) setPriority(Number(process.env.TEST_NICE));

const files = process.argv.slice(2);
const stream = run({ files, concurrency: Number(process.env.TEST_CONCURRENCY) || 1 });
// A failed test, or a file that failed to load or exited early (reported as a failed file).
const failures = [];
const failedFiles = new Set();
stream.on('test:fail', (event) => {
  if (event.todo || event.skip) return;
  process.exitCode = 1;
  failedFiles.add(event.file ?? '?');
  // A suite fails with its failing test: name the test, not every level above it.
  if (event.details?.error?.failureType === 'subtestsFailed') return;
  const cause = event.details?.error?.cause ?? event.details?.error;
  const first = String(cause?.message ?? cause ?? '').split('\n')[0].slice(0, 200);
  failures.push(`${event.file ?? '?'}: ${event.name}${first ? ` (${first})` : ''}`);
});
// The totals the spec reporter prints at the end ("ℹ tests 693", "ℹ pass 692", ...) come as
// the run's own diagnostics, outside any test (nesting 0, no file).
const totals = {};
stream.on('test:diagnostic', (event) => {
  const total = /^(tests|suites|pass|fail|cancelled|skipped|todo) (\d+)$/.exec(event.message);
  if (total && event.nesting === 0 && !event.file) totals[total[1]] = Number(total[2]);
});
stream.on('end', () => {
  if (process.env.TEST_SUMMARY_FILE) writeFileSync(process.env.TEST_SUMMARY_FILE, JSON.stringify({ ...totals, failures, failedFiles: [...failedFiles] }));
});
stream.compose(spec).pipe(process.stdout);
