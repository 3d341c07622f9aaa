// A server started with another secret key than the one its database's secrets were sealed
// with refuses to start (src/platform/secret-key-check.ts). Several nodes without a shared
// SWITCHBOARD_SECRET_KEY used to run until a node claimed a webhook delivery whose signing
// secret it could not open: every attempt it won failed, and such a delivery was never sent.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.ts';
import { startServer } from '../../src/main.ts';
import { SecretKeyMismatch } from '../../src/platform/secret-key-check.ts';
import { startTestServer, TEST_ENV, type TestServer } from '../helpers/server.ts';

let t: TestServer;
before(async () => {
  t = await startTestServer({ SWITCHBOARD_SECRET_KEY: 'the first key' });
  // A signing secret sealed with the first key.
  const acct = await t.createAccount('scale');
  const made = await t.as(acct.keys.sandbox).post('/v1/webhooks', { url: 'http://127.0.0.1:9/hooks', events: ['*'] });
  assert.equal(made.status, 200, JSON.stringify(made.body));
});
after(async () => {
  await t.close();
});

/** Another server on the test server's store (database and data dir) with `key`. */
function anotherServer(key: string) {
  const config = loadConfig({ ...TEST_ENV, SWITCHBOARD_SECRET_KEY: key }, { host: '127.0.0.1', port: 0, dataDir: t.store.dataDir });
  config.databaseUrl = t.store.databaseUrl;
  return startServer(config, { logger: false });
}

test('a server with another secret key refuses to start, saying every node needs the same SWITCHBOARD_SECRET_KEY', async () => {
  await assert.rejects(anotherServer('another key'), (err: Error) => err instanceof SecretKeyMismatch && /same SWITCHBOARD_SECRET_KEY/.test(err.message));
});

test('a server with the same key starts', async () => {
  const second = await anotherServer('the first key');
  await second.close();
});

test('a database from before the check is held to the key of the first server that starts on it', async () => {
  await t.server.database.db.deleteFrom('secret_key_check').execute();
  const second = await anotherServer('the first key');
  await second.close();
  assert.equal((await t.server.database.db.selectFrom('secret_key_check').select('id').execute()).length, 1);
  await assert.rejects(anotherServer('another key'), SecretKeyMismatch);
});
