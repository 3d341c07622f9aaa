// Starts real processes for benches: the Switchboard server from bin/switchboard.js on a
// fresh data dir, and helpers to create accounts through the CLI.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';

export const root = new URL('../..', import.meta.url).pathname;

export function freshDataDir(tag: string): string {
  return mkdtempSync(join(tmpdir(), `switchboard-bench-${tag}-`));
}

export function cli(args: string[], env: Record<string, string> = {}): string {
  const r = spawnSync(process.execPath, [join(root, 'bin/switchboard.js'), ...args], { env: { ...process.env, ...env }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`switchboard ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

export function createAccount(dataDir: string, plan = 'enterprise', env: Record<string, string> = {}) {
  return JSON.parse(cli(['accounts', 'create', '--plan', plan, '--json', '--data-dir', dataDir], env)) as {
    account: { id: string }; keys: { sandbox: string; live: string }; numbers: { sandbox: string[] };
  };
}

/** Spawns a process and resolves once it prints a line matching `ready`. */
export function startProcess(command: string, args: string[], env: Record<string, string>, ready: RegExp): Promise<{ child: ChildProcess; match: RegExpMatchArray }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const match = out.match(ready);
      if (match) {
        child.stdout!.off('data', onData);
        resolve({ child, match });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (c: Buffer) => { out += c.toString(); });
    child.once('exit', (code) => reject(new Error(`${command} exited with ${code} before it was ready:\n${out}`)));
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts `switchboard serve` and waits until /readyz answers (whatever the log level).
 * `nodeArgs` go to node itself (e.g. --cpu-prof, which NODE_OPTIONS refuses); `checkout` is
 * the source tree to run (another commit's, for a before/after in one run).
 */
export async function startSwitchboard(dataDir: string, env: Record<string, string> = {}, port?: number, nodeArgs: string[] = [], checkout = root) {
  const chosen = port ?? (await freePort());
  const url = `http://127.0.0.1:${chosen}`;
  const child = spawn(process.execPath, [...nodeArgs, join(checkout, 'bin/switchboard.js'), 'serve', '--port', String(chosen), '--data-dir', dataDir], {
    env: { ...process.env, SWITCHBOARD_LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'ignore', 'inherit'],
  });
  // A busy machine can take a while to compile the sources through tsx: wait up to 2 minutes.
  for (let i = 0; i < 1200; i++) {
    if (child.exitCode !== null) throw new Error(`switchboard exited with ${child.exitCode} before it was ready`);
    const ok = await fetch(`${url}/readyz`).then((r) => r.ok, () => false);
    if (ok) return { child, url, stop: () => stop(child) };
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error('switchboard did not become ready within 120 s');
}

export function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
