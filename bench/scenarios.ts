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
}

export const scenarios: Scenario[] = [
  { name: 'GET /v1/account', method: 'GET', path: '/v1/account' },
];
