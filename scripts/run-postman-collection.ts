// npm run collections:test: runs the committed Postman collection with newman against a live
// sandbox server on 127.0.0.1 (a fresh store; PostgreSQL when DATABASE_URL is set). Every
// request's test asserts a status the OpenAPI document lists for it, and problem bodies with a
// code; any failed assertion or request error fails the run.
import { readFileSync } from 'node:fs';
import newman from 'newman';
import { startTestServer } from '../test/helpers/server.ts';

const collection = JSON.parse(readFileSync(new URL('../collections/switchboard.postman_collection.json', import.meta.url), 'utf8'));
const server = await startTestServer();
try {
  const account = await server.createAccount('scale', 'Postman collection run');
  const summary = await new Promise<any>((resolve, reject) => {
    newman.run({
      collection,
      envVar: [
        { key: 'baseUrl', value: server.url },
        { key: 'apiKey', value: account.keys.sandbox },
        { key: 'from_number', value: account.numbers.sandbox[0]! },
      ],
      reporters: ['cli'],
      timeoutRequest: 30_000,
    }, (err, result) => (err ? reject(err) : resolve(result)));
  });
  const { stats, failures } = summary.run;
  console.log(`${stats.requests.total} requests, ${stats.assertions.total} assertions, ${failures.length} failures`);
  if (failures.length > 0 || stats.requests.total === 0) process.exitCode = 1;
} finally {
  await server.close();
}
