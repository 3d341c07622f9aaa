// The fixture most HTTP tests open with: a test server, a scale account on it, and a
// verifying receiver subscribed to every event of the account's sandbox; closed after.
// With `flowServer`, also the customer's flow server, verifying the sandbox's default secret.
// Call it at the top of a file or inside a describe: its before/after hooks join that
// scope, and its fields are there from that before hook on.
import { after, before } from 'node:test';
import { startTestServer, type CreatedAccount, type TestServer } from './server.ts';
import { subscribeAll } from './subscribe.ts';
import type { WebhookReceiver } from './webhook-receiver.ts';
import { startFlowServer, type FlowServer } from './flow-server.ts';

export interface SandboxAccount {
  readonly server: TestServer;
  readonly account: CreatedAccount;
  readonly receiver: WebhookReceiver;
  /** The account's first sandbox number: what its calls are placed from. */
  readonly from: string;
  /** The customer's flow server, when asked for with `flowServer`. */
  readonly flowServer: FlowServer;
  /** An HTTP client with the account's sandbox key. */
  api(): ReturnType<TestServer['as']>;
}

/** `env` overrides the test server's settings (TEST_ENV), e.g. the simulator's time scale. */
export function useSandboxAccount(env: Record<string, string> = {}, opts: { flowServer?: boolean } = {}): SandboxAccount {
  let server: TestServer | undefined;
  let account: CreatedAccount | undefined;
  let receiver: WebhookReceiver | undefined;
  let flowServer: FlowServer | undefined;
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('useSandboxAccount(): read before its before hook ran');
    return value;
  };

  before(async () => {
    server = await startTestServer(env);
    account = await server.createAccount('scale');
    receiver = await subscribeAll(server, account.keys.sandbox);
    if (opts.flowServer) {
      flowServer = await startFlowServer();
      flowServer.secrets.push((await server.as(account.keys.sandbox).get('/v1/webhooks/default_secret')).body.secret);
    }
  });
  // Closes what the before hook got to, so a failed start leaks nothing.
  after(async () => {
    await flowServer?.close();
    await receiver?.close();
    await server?.close();
  });

  return {
    get server() { return ready(server); },
    get account() { return ready(account); },
    get receiver() { return ready(receiver); },
    get from() { return ready(ready(account).numbers.sandbox[0]); },
    get flowServer() { return ready(flowServer); },
    api: () => ready(server).as(ready(account).keys.sandbox),
  };
}

