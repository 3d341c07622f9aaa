// Runs real SIP peers (SIPp, and later baresip and Kamailio) on 127.0.0.1 for tests. A peer
// that is not installed skips its tests with a loud message on a developer's machine and
// fails them on CI, where .ci/run installs it.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { createServer, type AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export function peerAvailable(binary: string): boolean {
  const found = spawnSync('sh', ['-c', `command -v ${binary}`]).status === 0;
  if (!found) {
    if (process.env.CI) throw new Error(`${binary} is required on CI (.ci/run installs it)`);
    console.error(`\n!!! ${binary} is not installed: skipping the tests that need it. Install it (see .ci/run) to run them.\n`);
  }
  return found;
}

/** A TCP port that was free a moment ago (listen on 0, read, release). */
export function freeTcpPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** A UDP port that was free a moment ago (bind to 0, read, release). */
export async function freeUdpPort(): Promise<number> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return port;
}

export interface SippRun {
  port: number;
  /** SIPp's working directory (its logs, and files a scenario's exec writes). */
  dir: string;
  mediaPort: number;
  process: ChildProcess;
  /** Resolves when SIPp exits: code 0 means every call of the scenario succeeded. */
  done: Promise<{ code: number | null; errors: string }>;
}

export const SCENARIOS = new URL('../sip/scenarios/', import.meta.url).pathname;

type SippOptions = { scenario: string; port?: number; args?: string[]; transport?: 'u1' | 't1'; timeoutSeconds?: number; remote?: string; localIp?: string };

/**
 * Starts SIPp and waits until it listens. Its ports are only free "a moment ago" (and its media
 * port is picked at random beside the RTP ports of every server under test), so a start that
 * never listens (SIPp could not bind, and exited) is retried with fresh ports, up to three times.
 */
export async function runSipp(options: SippOptions): Promise<SippRun> {
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await startSipp(options);
    } catch (err) {
      lastError = err;
    }
  }
  throw lastError;
}

async function startSipp(options: SippOptions): Promise<SippRun> {
  const port = options.port ?? await freeUdpPort();
  const mediaPort = 20000 + 2 * Math.floor(Math.random() * 10000);
  const dir = mkdtempSync(join(tmpdir(), 'sipp-'));
  const args = [
    '-sf', resolve(SCENARIOS, options.scenario), '-i', options.localIp ?? '127.0.0.1', '-p', String(port), '-mi', options.localIp ?? '127.0.0.1', '-mp', String(mediaPort),
    '-t', options.transport ?? 'u1', '-m', '1', '-nostdin', '-timeout', `${options.timeoutSeconds ?? 30}s`, '-timeout_error',
    '-trace_err', '-error_file', join(dir, 'errors.log'), ...(options.args ?? []), ...(options.remote ? [options.remote] : []),
  ];
  const child = spawn('sipp', args, { stdio: ['ignore', 'ignore', 'pipe'], cwd: dir });
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += String(chunk);
  });
  const done = new Promise<{ code: number | null; errors: string }>((resolve) => {
    child.on('exit', (code) => {
      let errors = stderr;
      for (const file of readdirSync(dir)) if (file.endsWith('.log')) errors += readFileSync(join(dir, file), 'utf8');
      resolve({ code, errors });
    });
  });
  // SIPp needs a moment to bind before it can be called.
  try {
    await waitForListener(port, options.transport === 't1' ? 'tcp' : 'udp');
  } catch (err) {
    child.kill('SIGKILL');
    const { errors } = await done;
    throw new Error(`${(err as Error).message}; SIPp said: ${errors.trim().slice(0, 500) || 'nothing'}`);
  }
  return { port, dir, mediaPort, process: child, done };
}

/**
 * The final response a refusal scenario wrote with `exec command="echo CODE > final-response.txt"`.
 * SIPp runs that command in a child it does not wait for, so on a busy machine the file can
 * appear after SIPp has exited, and be empty for a moment before `echo` writes its line: wait
 * for the whole line, not just the file.
 */
export async function sippFinalResponse(sipp: SippRun): Promise<string> {
  const result = await sipp.done;
  assert.equal(result.code, 0, result.errors);
  const file = join(sipp.dir, 'final-response.txt');
  for (let i = 0; i < 200; i++) {
    const line = existsSync(file) ? readFileSync(file, 'utf8') : '';
    if (line.endsWith('\n')) return line.trim();
    await sleep(50);
  }
  return existsSync(file) ? readFileSync(file, 'utf8').trim() : '';
}

/** Polls /proc/net until something listens on `port` (no probe traffic that a peer would log). */
export async function waitForListener(port: number, protocol: 'tcp' | 'udp', timeoutMs = 5000): Promise<void> {
  const hex = `:${port.toString(16).toUpperCase().padStart(4, '0')} `;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const file of [`/proc/net/${protocol}`, `/proc/net/${protocol}6`]) {
      let table = '';
      try {
        table = readFileSync(file, 'utf8');
      } catch {
        continue;
      }
      const listening = table.split('\n').some((line) => {
        const cols = line.trim().split(/\s+/);
        return (cols[1] ?? '').endsWith(hex.trim()) && (protocol === 'udp' || cols[3] === '0A');
      });
      if (listening) return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`nothing listens on ${protocol} port ${port} after ${timeoutMs} ms`);
}
