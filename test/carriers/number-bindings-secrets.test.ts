// Binding a number to a link names the link; it connects to nothing. So `numbers import
// --trunk/--messaging-carrier` and `numbers bind` work in a shell where the carriers file's
// env: secrets are not set (they are the server's, not the operator's shell's), while the
// file is still checked as `serve` checks it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { runCli } from '../helpers/cli.ts';

let t: TestServer;
const dir = mkdtempSync(join(tmpdir(), 'sb-bind-secrets-'));
const carriersFile = join(dir, 'carriers.yaml');
// Variables no shell sets: the test asserts they are never needed.
writeFileSync(carriersFile, [
  'sip:',
  '  public_host: 127.0.0.1',
  '  trunks:',
  '    - { name: carrier-a, host: 127.0.0.1, username: acme, password: "env:SB_UNSET_TRUNK_PASSWORD", inbound_auth: { username: in, password: "env:SB_UNSET_INBOUND_PASSWORD" } }',
  'smpp:',
  '  - { name: smsc-eu, host: "env:SB_UNSET_SMSC_HOST", system_id: a, password: "env:SB_UNSET_SMPP_PASSWORD" }',
  '',
].join('\n'));
before(async () => { t = await startTestServer(); });
after(() => t.close());

const cli = (file: string, ...args: string[]) => runCli(t, file, args);

describe('binding numbers needs no carrier secrets in the shell', () => {
  test('numbers import --trunk and --messaging-carrier, then numbers bind, with every env: variable unset', async () => {
    for (const name of ['SB_UNSET_TRUNK_PASSWORD', 'SB_UNSET_INBOUND_PASSWORD', 'SB_UNSET_SMSC_HOST', 'SB_UNSET_SMPP_PASSWORD']) {
      assert.equal(process.env[name], undefined, `${name} must not be set for this test`);
    }
    const acct = await t.createAccount('growth');
    const imported = await cli(carriersFile, 'numbers', 'import', '--account', acct.account.id, '--number', '+14155550142',
      '--trunk', 'carrier-a', '--messaging-carrier', 'smsc-eu', '--json');
    assert.equal(imported.status, 0, imported.stderr);
    const id = JSON.parse(imported.stdout).id;
    const shown = await t.as(acct.keys.live).get(`/v1/numbers/${id}`);
    assert.equal(shown.status, 200);
    assert.equal(shown.body.voice_trunk, 'carrier-a');
    assert.equal(shown.body.messaging_carrier, 'smsc-eu');

    const unbound = await cli(carriersFile, 'numbers', 'bind', id, '--trunk', 'none', '--json');
    assert.equal(unbound.status, 0, unbound.stderr);
    assert.equal(JSON.parse(unbound.stdout).voice_trunk, null);
    const rebound = await cli(carriersFile, 'numbers', 'bind', id, '--trunk', 'carrier-a', '--json');
    assert.equal(rebound.status, 0, rebound.stderr);
    assert.equal((await t.as(acct.keys.live).get(`/v1/numbers/${id}`)).body.voice_trunk, 'carrier-a');
  });

  test('the names are still checked against the file, and a bad file is still refused', async () => {
    const acct = await t.createAccount('growth');
    const typo = await cli(carriersFile, 'numbers', 'import', '--account', acct.account.id, '--number', '+14155550143', '--trunk', 'carrier-b');
    assert.equal(typo.status, 2);
    assert.match(typo.stderr, /--trunk carrier-b: the carriers file has no link of that name; the voice links are carrier-a/);

    // A secret in clear is a problem whatever the shell holds; so is a field of the wrong type.
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'smpp:\n  - { name: smsc-eu, host: 127.0.0.1, port: 99999, system_id: a, password: hunter2 }\n');
    const refused = await cli(bad, 'numbers', 'import', '--account', acct.account.id, '--number', '+14155550143', '--messaging-carrier', 'smsc-eu');
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /bad\.yaml:2:\d+ smpp\[0\]\.port: /);
    assert.match(refused.stderr, /bad\.yaml:2:\d+ smpp\[0\]\.password: is a secret: write it as env:NAME/);
    assert.equal((await t.as(acct.keys.live).get('/v1/numbers')).body.data.length, 0, 'nothing was imported');
  });

  test('carriers check, which connects, still needs them and says which', async () => {
    const r = await cli(carriersFile, 'carriers', 'check', '--json');
    assert.equal(r.status, 1);
    const report = JSON.parse(r.stdout);
    assert.equal(report.valid, false);
    assert.ok(report.problems.some((p: string) => /sip\.trunks\[0\]\.password: refers to the environment variable SB_UNSET_TRUNK_PASSWORD, which is not set/.test(p)), report.problems.join('\n'));
  });
});
