// Runs the switchboard CLI the way an operator would, against a test server's data (its
// SQLite directory or PostgreSQL database) and a carriers file.
import { spawn } from 'node:child_process';
import type { TestServer } from './server.ts';

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(t: TestServer, carriersFile: string, args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const childEnv: Record<string, string | undefined> = { ...process.env, SWITCHBOARD_DATA_DIR: t.store.dataDir, SWITCHBOARD_CARRIERS_FILE: carriersFile, ...env };
  if (t.store.databaseUrl) childEnv.DATABASE_URL = t.store.databaseUrl;
  else delete childEnv.DATABASE_URL;
  const child = spawn(process.execPath, ['bin/switchboard.js', ...args], { env: childEnv });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => { stdout += d; });
  child.stderr.on('data', (d) => { stderr += d; });
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })));
}
