// The setup the issue-27 process tests share (a server stopped with SIGTERM, one SIGKILLed):
// an account made by the CLI on a fresh store, a `switchboard serve` process that can be
// started again on the same store, a webhook receiver subscribed to everything, a `ws` stream
// server, and a sandbox call whose flow is held by a bidirectional stream, with a second
// stream asked for through the API. Both streams have started and connected when it returns.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createTestStore, type TestStore } from './database.ts';
import { TEST_ENV } from './server.ts';
import { NODES_SECRET_KEY, nodeApi, startSecondNode, type SecondNode } from './second-node.ts';
import { startReceiver, type WebhookReceiver } from './webhook-receiver.ts';
import { startStreamServer, type StreamConnection, type StreamServer } from './stream-server.ts';
import { MAGIC } from '../voice/voice-helpers.ts';

export interface StreamsOnANode {
  store: TestStore;
  hooks: WebhookReceiver;
  media: StreamServer;
  /** Starts a server process on the store; from then on `api` talks to it. */
  start(): Promise<SecondNode>;
  current(): SecondNode;
  api: ReturnType<typeof nodeApi>;
  callId: string;
  /** The call's two streams as GET /v1/calls/{id}/streams listed them once both had started. */
  streams: any[];
  /** Their sockets at the stream server, in the same order. */
  sockets: StreamConnection[];
  close(): Promise<void>;
}

export interface StreamsOnANodeOptions {
  /** A carriers file for the server processes (PostgreSQL: make them media nodes). */
  carriersFile?: (postgres: boolean) => Promise<string | undefined>;
  /** `parameters` of the stream that holds the flow. */
  heldParameters?: Record<string, string>;
}

export async function startStreamsOnANode(opts: StreamsOnANodeOptions = {}): Promise<StreamsOnANode> {
  const store = await createTestStore();
  const nodes: SecondNode[] = [];
  let hooks: WebhookReceiver | undefined;
  let media: StreamServer | undefined;
  const close = async () => {
    for (const node of nodes) node.kill();
    await media?.close();
    await hooks?.close();
    await store.drop();
  };
  try {
    const postgres = store.databaseUrl !== undefined;
    const env: Record<string, string | undefined> = { ...process.env, ...TEST_ENV, SWITCHBOARD_SECRET_KEY: NODES_SECRET_KEY, DATABASE_URL: store.databaseUrl };
    if (!postgres) delete env.DATABASE_URL;
    const created = spawnSync(process.execPath, ['bin/switchboard.js', 'accounts', 'create', '--plan', 'scale', '--json', '--data-dir', store.dataDir], { env, encoding: 'utf8' });
    assert.equal(created.status, 0, created.stderr);
    const account = JSON.parse(created.stdout) as { keys: { sandbox: string }; numbers: { sandbox: string[] } };
    const carriersFile = await opts.carriersFile?.(postgres);
    let current: SecondNode | undefined;
    const start = async () => {
      current = await startSecondNode({ databaseUrl: store.databaseUrl, dataDir: store.dataDir, ...(carriersFile ? { carriersFile } : {}) });
      nodes.push(current);
      return current;
    };
    await start();
    const api = nodeApi(() => current!, account.keys.sandbox);
    hooks = await startReceiver();
    hooks.secrets.push((await api('POST', '/v1/webhooks', { url: hooks.url, events: ['*'] })).secret);
    hooks.secrets.push((await api('GET', '/v1/webhooks/default_secret')).secret);
    media = await startStreamServer();

    const held = { url: media.url, bidirectional: true, ...(opts.heldParameters ? { parameters: opts.heldParameters } : {}) };
    const call = await api('POST', '/v1/calls', {
      from: account.numbers.sandbox[0], to: MAGIC.staysUp,
      flow: [{ stream: held }, { say: { text: 'The stream is over.' } }, { hangup: {} }],
    });
    await hooks.waitForEvent('call.stream.started', undefined, 60_000);
    const extra = await api('POST', `/v1/calls/${call.id}/streams`, { url: media.url, track: 'both' });
    await hooks.waitFor((events) => events.some((e) => e.type === 'call.stream.started' && e.data.object.id === extra.id), 60_000);
    const streams = (await api('GET', `/v1/calls/${call.id}/streams`)).data;
    assert.deepEqual(streams.map((s: any) => s.status), ['started', 'started']);
    const sockets = [await media.connection(0), await media.connection(1)];
    return { store, hooks, media, start, current: () => current!, api, callId: call.id, streams, sockets, close };
  } catch (err) {
    await close();
    throw err;
  }
}
