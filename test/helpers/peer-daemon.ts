// Runs a long-lived real peer (baresip, Kamailio) for tests: spawned in its own directory,
// its stdout and stderr kept (its log explains a failed call), ready once it listens on the
// ports it was configured with, and stopped with SIGTERM (SIGKILL after 3 s). A peer that
// exits or never listens fails the test with its own words.
import { spawn, type ChildProcess } from 'node:child_process';
import { waitForListener } from './sipp.ts';

export interface PeerDaemon {
  process: ChildProcess;
  /** stdout and stderr so far. */
  log(): string;
  /** Ends the peer; resolves once it is gone. */
  stop(): Promise<void>;
}

export interface PeerDaemonOptions {
  /** How errors name it ("baresip", "kamailio"). */
  name: string;
  command: string;
  args: string[];
  cwd: string;
  /** Ports it listens on once ready. */
  listens: { port: number; protocol: 'udp' | 'tcp' }[];
}

export async function startPeerDaemon(options: PeerDaemonOptions): Promise<PeerDaemon> {
  const child = spawn(options.command, options.args, { stdio: ['ignore', 'pipe', 'pipe'], cwd: options.cwd });
  let output = '';
  const capture = (chunk: Buffer) => {
    output += String(chunk);
  };
  child.stdout?.on('data', capture);
  child.stderr?.on('data', capture);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  try {
    for (const { port, protocol } of options.listens) {
      await Promise.race([
        waitForListener(port, protocol),
        exited.then(() => { throw new Error(`it exited (${child.exitCode ?? child.signalCode})`); }),
      ]);
    }
  } catch (err) {
    child.kill('SIGKILL');
    throw new Error(`${options.name} did not start: ${(err as Error).message}\n${output}`);
  }
  return {
    process: child,
    log: () => output,
    stop: async () => {
      if (gone()) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(killer);
    },
  };
}
