// Sums what scripts/test-cpu-probe.mjs logged during a run (TEST_CPU_REPORT=1 npm test): per
// test file, the CPU seconds of its own process and of the processes it spawned, and its wall
// time; printed slowest first, with totals, so a change's cost is measured in CPU, which the
// other work on a shared machine does not inflate the way it inflates wall time.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

export function cpuReport(logPath, { top = 40 } = {}) {
  const byFile = new Map();
  let text = '';
  try { text = readFileSync(logPath, 'utf8'); } catch { return 'TEST_CPU_REPORT: nothing was logged'; }
  for (const line of text.split('\n').filter(Boolean)) {
    const { file, db, role, cpu, wall } = JSON.parse(line);
    // Files run from the precompiled mirror (.build/) are named as in the checkout; a file run
    // on two databases has a row for each.
    const name = `${relative(process.cwd(), file).replace(/^\.build\//, '')}${db === 'postgres' ? ' [postgres]' : ''}`;
    const row = byFile.get(name) ?? { name, own: 0, spawnedCpu: 0, spawned: 0, wall: 0 };
    if (role === 'file') { row.own += cpu; row.wall = wall; } else { row.spawnedCpu += cpu; row.spawned += 1; }
    byFile.set(name, row);
  }
  const rows = [...byFile.values()].sort((a, b) => b.own + b.spawnedCpu - (a.own + a.spawnedCpu));
  const sum = (pick) => rows.reduce((s, r) => s + pick(r), 0);
  const fmt = (n) => n.toFixed(1).padStart(7);
  const lines = [
    `== CPU per test file (s): ${rows.length} files, CPU ${sum((r) => r.own + r.spawnedCpu).toFixed(0)} s ` +
      `(file processes ${sum((r) => r.own).toFixed(0)}, ${sum((r) => r.spawned)} spawned Node processes ${sum((r) => r.spawnedCpu).toFixed(0)}), ` +
      `file wall times add up to ${sum((r) => r.wall).toFixed(0)} s`,
    '    cpu    own  spawned(n)   wall  file',
    ...rows.slice(0, top).map((r) => `${fmt(r.own + r.spawnedCpu)}${fmt(r.own)}${fmt(r.spawnedCpu)}(${String(r.spawned).padStart(2)})${fmt(r.wall)}  ${r.name}`),
  ];
  if (rows.length > top) lines.push(`    ... ${rows.length - top} more files (TEST_CPU_TOP=N shows more)`);
  return lines.join('\n');
}
