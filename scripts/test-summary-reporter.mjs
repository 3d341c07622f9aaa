// A node:test reporter that scripts/test.mjs gives every test file beside the spec reporter.
// It writes one JSON line per test as the test starts running and as it ends ({"started": name}
// on test:dequeue, {"ended": name} on test:complete; test:start comes only when a test
// reports, after it ran), so a file killed at its deadline still shows which tests were running,
// and last one JSON object, the file's totals and the names of its failed tests, which the
// scheduler adds up, repeats at the end of the run, and runs again.
export default async function* summary(source) {
  const totals = {};
  const failures = [];
  for await (const { type, data } of source) {
    if (type === 'test:dequeue') yield `${JSON.stringify({ started: data.name })}\n`;
    if (type === 'test:complete') yield `${JSON.stringify({ ended: data.name })}\n`;
    if (type === 'test:fail' && !data.todo && !data.skip) {
      // A suite fails with its failing test: name the test, not every level above it.
      if (data.details?.error?.failureType === 'subtestsFailed') continue;
      const cause = data.details?.error?.cause ?? data.details?.error;
      const first = String(cause?.message ?? cause ?? '').split('\n')[0].slice(0, 200);
      failures.push(`${data.name}${first ? ` (${first})` : ''}`);
    }
    // The totals the spec reporter prints last ("ℹ tests 12") come as the run's own
    // diagnostics, outside any test (nesting 0, no file).
    if (type === 'test:diagnostic' && data.nesting === 0 && !data.file) {
      const total = /^(tests|suites|pass|fail|cancelled|skipped|todo) (\d+)$/.exec(data.message);
      if (total) totals[total[1]] = Number(total[2]);
    }
  }
  yield JSON.stringify({ ...totals, failures });
}
