// Another `switchboard serve` process on the test server's PostgreSQL database: a second media
// node with its own HTTP port, SIP port and RTP range (docs/live-voice.md, "Several nodes").
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { TEST_ENV } from './server.ts';
import { freeUdpPort } from './sipp.ts';

export interface SecondNode {
  url: string;
  process: ChildProcess;
  /** What it printed so far (for failure messages). */
  log(): string;
  kill(): void;
}

/**
 * Nodes on one database share one secret key (docs/webhooks.md): start the test server with it
 * too (`SWITCHBOARD_SECRET_KEY`), or the second node refuses to start.
 */
export const NODES_SECRET_KEY = 'several-nodes test key';

/** A carriers file with one SIPp trunk on 127.0.0.1, for one node. */
export async function nodeCarriersFile(trunkPort: number, rtp: [number, number], leaseSeconds: number): Promise<string> {
  const file = join(mkdtempSync(join(tmpdir(), 'sb-nodes-')), 'carriers.yaml');
  writeFileSync(file, [
    'sip:',
    `  listen: { host: 127.0.0.1, udp_port: ${await freeUdpPort()} }`,
    '  public_host: 127.0.0.1',
    `  rtp: { port_min: ${rtp[0]}, port_max: ${rtp[1]} }`,
    `  node_lease_seconds: ${leaseSeconds}`,
    '  trunks:',
    `    - { name: sipp, host: 127.0.0.1, port: ${trunkPort}, codecs: [PCMU], transfer: refer }`,
    '',
  ].join('\n'));
  return file;
}

function freeTcpPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts the node and waits until it answers /readyz. Without a carriers file it runs no live
 * carrier (an API node). Without a database URL it serves the SQLite store in `dataDir`: a
 * process of its own, so a test can SIGKILL it and start another on the same store.
 */
export async function startSecondNode(options: { databaseUrl: string | undefined; carriersFile?: string; dataDir?: string }): Promise<SecondNode> {
  const port = await freeTcpPort();
  const url = `http://127.0.0.1:${port}`;
  const env: Record<string, string | undefined> = { ...process.env, ...TEST_ENV, DATABASE_URL: options.databaseUrl, SWITCHBOARD_SECRET_KEY: NODES_SECRET_KEY, SWITCHBOARD_CARRIERS_FILE: options.carriersFile ?? '', SWITCHBOARD_LOG_LEVEL: 'warn' };
  if (options.databaseUrl === undefined) delete env.DATABASE_URL;
  const child = spawn(process.execPath, ['bin/switchboard.js', 'serve', '--port', String(port), '--data-dir', options.dataDir ?? mkdtempSync(join(tmpdir(), 'sb-node-'))], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout?.on('data', (chunk) => { log += String(chunk); });
  child.stderr?.on('data', (chunk) => { log += String(chunk); });
  const node: SecondNode = { url, process: child, log: () => log, kill: () => child.kill('SIGKILL') };
  // Generous: seven engineers share two cores here, and a loaded machine takes tens of seconds to start a server.
  for (let i = 0; i < 1800; i++) {
    if (child.exitCode !== null) throw new Error(`the second node exited before it was ready:\n${log}`);
    if (await fetch(`${url}/readyz`).then((r) => r.ok, () => false)) return node;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  node.kill();
  throw new Error(`the second node was not ready within 180 s:\n${log}`);
}

/**
 * Calls one node's API (`node()` is read at each call, so a test may swap in a restarted node)
 * with `key`; a status other than 200 fails the test with the answer.
 */
export function nodeApi(node: () => { url: string }, key: string) {
  return async (method: string, path: string, body?: unknown): Promise<any> => {
    const res = await fetch(`${node().url}${path}`, {
      method, headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${method} ${path} on ${node().url}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : null;
  };
}
