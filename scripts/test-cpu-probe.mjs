// Preloaded into every Node process of a test run when TEST_CPU_REPORT=1 (scripts/test.mjs
// puts it in NODE_OPTIONS): on exit each process appends one line to $TEST_CPU_LOG with its
// own CPU time and wall time, charged to the test file that started it, directly or through
// the CLI and server processes a test spawns. Wall time alone cannot tell a file that burns
// the cores from one that waits on a timer, and on a shared machine wall time is noise.
import { appendFileSync } from 'node:fs';

const log = process.env.TEST_CPU_LOG;
const runner = process.argv.some((arg) => /scripts\/test\.mjs$/.test(arg));
let file = process.env.TEST_CPU_FILE;
let role = 'spawned';
if (!file && !runner) {
  file = process.argv.find((arg) => /\.test\.[jt]s$/.test(arg))?.replace(/\.js$/, '.ts');
  // Processes a test file spawns inherit the variable, so their CPU is charged to the file.
  if (file) { role = 'file'; process.env.TEST_CPU_FILE = file; }
}
if (log && file) {
  process.on('exit', () => {
    const cpu = process.cpuUsage();
    appendFileSync(log, JSON.stringify({ file, db: process.env.DATABASE_URL ? 'postgres' : 'sqlite', role, cpu: (cpu.user + cpu.system) / 1e6, wall: process.uptime() }) + '\n');
  });
}
