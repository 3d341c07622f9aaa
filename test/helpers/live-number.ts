// A live number for an account on a server without a live carrier, imported the way an
// operator would (`switchboard numbers import`, no trunk), for tests of what a live request
// is told before and after the carrier check.
import assert from 'node:assert/strict';
import { runCli } from './cli.ts';
import type { TestServer } from './server.ts';

export async function importLiveNumber(t: TestServer, accountId: string, phoneNumber: string): Promise<string> {
  const imported = await runCli(t, '', ['numbers', 'import', '--account', accountId, '--number', phoneNumber, '--json']);
  assert.equal(imported.status, 0, imported.stderr);
  return JSON.parse(imported.stdout).phone_number as string;
}
