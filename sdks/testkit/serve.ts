// Starts a real Switchboard server on 127.0.0.1 for the SDKs' own test suites (Node, Python,
// Go): a fresh store (SQLite, or PostgreSQL when DATABASE_URL is set), the fast simulator and
// webhook settings the repository's tests use, and two accounts. It prints one JSON line:
//   {"url", "sandbox_key", "live_key", "sandbox_number", "live_number", "limited_key", "limited_number"}
// and serves until its stdin closes or it gets SIGTERM/SIGINT, then drops the store.
// Run: node --import tsx sdks/testkit/serve.ts
import { startTestServer } from '../../test/helpers/server.ts';
import { systemClock } from '../../src/platform/clock.ts';

/** A live number of the main account, imported without a trunk (the server has no live carrier),
 * so a live call from it is valid and is refused with carrier_not_configured: from a number the
 * account does not own it would be from_number_not_owned, which is reported first. */
const LIVE_NUMBER = '+14155550100';

/** The limited account's sustained rate: one token every 3 s, so a test can empty the bucket and see a
 * 429 before it refills (Retry-After about 3 s). */
const LIMITED_RATE_PER_MINUTE = 20;

const server = await startTestServer();
const main = await server.createAccount('scale', 'SDK tests');
const limited = await server.createAccount('scale', 'SDK rate-limit tests');
await server.server.built.services.accounts.update(limited.account.id, { rateLimitPerMinute: LIMITED_RATE_PER_MINUTE });
await server.server.built.services.numbers.importNumber(systemClock, {
  accountId: main.account.id, mode: 'live', phoneNumber: LIVE_NUMBER, capabilities: ['voice', 'sms', 'mms'], type: 'local', country: 'US', inventory: false,
});

process.stdout.write(JSON.stringify({
  url: server.url,
  sandbox_key: main.keys.sandbox,
  live_key: main.keys.live,
  sandbox_number: main.numbers.sandbox[0],
  live_number: LIVE_NUMBER,
  limited_key: limited.keys.sandbox,
  limited_number: limited.numbers.sandbox[0],
}) + '\n');

let closing = false;
async function shutdown(): Promise<void> {
  if (closing) return;
  closing = true;
  await server.close();
  process.exit(0);
}
process.stdin.on('end', shutdown);
process.stdin.on('close', shutdown);
process.stdin.resume();
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
