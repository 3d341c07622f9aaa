// The API bench's scenarios: each is run against Switchboard and, with the same request
// shape, against bare Fastify, in one run. Add a scenario here for every hot endpoint.
export interface BenchAccount {
  sandboxKey: string;
  liveKey: string;
  sandboxNumber: string;
}

export interface Scenario {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  /** A fresh body per request (called for every request). */
  body?: (account: BenchAccount, n: number) => unknown;
  /** Send a unique Idempotency-Key with every request. */
  idempotent?: boolean;
  /**
   * Run against a second Switchboard whose job worker is off: the request's own work, with
   * the simulated carrier's steps left queued instead of competing for the same core.
   */
  workerOff?: boolean;
}

const call = (account: BenchAccount) => ({ from: account.sandboxNumber, to: '+14155550100', record: false });

export const scenarios: Scenario[] = [
  { name: 'GET /v1/account', method: 'GET', path: '/v1/account' },
  {
    // A 1-segment SMS from the account's sandbox number: validation, from-number lookup, the
    // insert, message.queued and the dispatch job in one transaction (the simulator then
    // runs sending/sent/delivered in the background, as in production).
    name: 'POST /v1/messages',
    method: 'POST',
    path: '/v1/messages',
    body: (account, n) => ({ from: account.sandboxNumber, to: '+14155550100', body: `Bench message ${n}` }),
  },
  {
    // The same message with an Idempotency-Key, as every SDK sends one: the key is kept in the
    // send's own transaction (answer-once.ts), and no AsyncLocalStorage switches Node's promise
    // hooks on for the simulator's steps.
    name: 'POST /v1/messages, with Idempotency-Key',
    method: 'POST',
    path: '/v1/messages',
    body: (account, n) => ({ from: account.sandboxNumber, to: '+14155550100', body: `Bench message ${n}` }),
    idempotent: true,
  },
  {
    // The same request with the simulator's steps left queued: the request's own work, without
    // the sandbox carrier's three background transactions per message (the row above is the
    // one issue 29's target applies to: it is how the issue measured its 822 µs).
    name: 'POST /v1/messages, worker off',
    method: 'POST',
    path: '/v1/messages',
    body: (account, n) => ({ from: account.sandboxNumber, to: '+14155550100', body: `Bench message ${n}` }),
    workerOff: true,
  },
  {
    // A sandbox call with an Idempotency-Key: the key claim, E.164 checks, from-number lookup,
    // the concurrent-call check (Enterprise: none), the insert, call.queued and the carrier's
    // dial job in one transaction; the simulator then rings, answers and completes every
    // call (its delays scaled by 0.001) in the same process, on the same SQLite writer.
    name: 'POST /v1/calls',
    method: 'POST',
    path: '/v1/calls',
    body: call,
    idempotent: true,
  },
  {
    // The same request with the simulator's work left queued: what the API path costs.
    name: 'POST /v1/calls, worker off',
    method: 'POST',
    path: '/v1/calls',
    body: call,
    idempotent: true,
    workerOff: true,
  },
  {
    // The same request without an Idempotency-Key: what the key's request-wide transaction
    // adds (its claim, its stored answer, and the promise hooks its AsyncLocalStorage turns on).
    name: 'POST /v1/calls, no Idempotency-Key, worker off',
    method: 'POST',
    path: '/v1/calls',
    body: call,
    workerOff: true,
  },
  {
    // With a webhook_url whose host must be resolved (a DNS lookup off the database): the
    // request waits on I/O that has nothing to do with the database while it holds its key.
    name: 'POST /v1/calls, webhook_url host, worker off',
    method: 'POST',
    path: '/v1/calls',
    body: (account) => ({ ...call(account), webhook_url: 'http://localhost:9/hook' }),
    idempotent: true,
    workerOff: true,
  },
];
