// Live numbers bound to links of the carriers file by name, by the operator's CLI, and
// shown on the number through the API.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { runCli } from '../helpers/cli.ts';

let t: TestServer;
const carriersFile = join(mkdtempSync(join(tmpdir(), 'sb-bind-')), 'carriers.yaml');
writeFileSync(carriersFile, [
  'smpp:',
  '  - { name: smsc-eu, host: 127.0.0.1, system_id: a, password: "env:PW" }',
  '  - { name: smsc-us, host: 127.0.0.1, system_id: b, password: "env:PW" }',
  '',
].join('\n'));
before(async () => { t = await startTestServer(); });
after(() => t.close());

const cli = (...args: string[]) => runCli(t, carriersFile, args, { PW: 'x' });

describe('binding live numbers to carrier links', () => {
  test('import --messaging-carrier binds the number; the API shows it; bind rebinds and unbinds', async () => {
    const acct = await t.createAccount('growth');
    const imported = await cli('numbers', 'import', '--account', acct.account.id, '--number', '+14155550142', '--messaging-carrier', 'smsc-eu', '--json');
    assert.equal(imported.status, 0, imported.stderr);
    const id = JSON.parse(imported.stdout).id;
    const shown = await t.as(acct.keys.live).get(`/v1/numbers/${id}`);
    assert.equal(shown.status, 200);
    assert.equal(shown.body.messaging_carrier, 'smsc-eu');
    assert.equal(shown.body.voice_trunk, null);

    const rebound = await cli('numbers', 'bind', id, '--messaging-carrier', 'smsc-us', '--json');
    assert.equal(rebound.status, 0, rebound.stderr);
    assert.equal((await t.as(acct.keys.live).get(`/v1/numbers/${id}`)).body.messaging_carrier, 'smsc-us');
    const unbound = await cli('numbers', 'bind', id, '--messaging-carrier', 'none');
    assert.equal(unbound.status, 0, unbound.stderr);
    assert.match(unbound.stdout, /messaging=\(default\)/);
    assert.equal((await t.as(acct.keys.live).get(`/v1/numbers/${id}`)).body.messaging_carrier, null);
  });

  test('an unknown link, or a messaging link given as a trunk, is refused with the names that fit', async () => {
    const acct = await t.createAccount('growth');
    const typo = await cli('numbers', 'import', '--account', acct.account.id, '--number', '+14155550143', '--messaging-carrier', 'smsc-uk');
    assert.equal(typo.status, 2);
    assert.match(typo.stderr, /--messaging-carrier smsc-uk: the carriers file has no link of that name; the messaging links are smsc-eu, smsc-us/);
    const wrongRole = await cli('numbers', 'import', '--account', acct.account.id, '--number', '+14155550143', '--trunk', 'smsc-eu');
    assert.equal(wrongRole.status, 2);
    assert.match(wrongRole.stderr, /--trunk smsc-eu: smpp\[0\] is a messaging link; it configures no voice links/);
    const list = await t.as(acct.keys.live).get('/v1/numbers');
    assert.equal(list.body.data.length, 0, 'nothing was imported');
  });
});
