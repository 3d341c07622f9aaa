// The carriers file (SWITCHBOARD_CARRIERS_FILE) as an operator meets it: `switchboard
// carriers check` against a real SMSC (the `smpp` package's server), the messages a bad
// file gets (each naming its place in the file), and `serve` refusing to start on one.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestSmsc, type TestSmsc } from '../helpers/smsc.ts';
import { parseCarriersText, CarriersFileError } from '../../src/carriers/config/load.ts';

const dir = mkdtempSync(join(tmpdir(), 'sb-carriers-'));
let smsc: TestSmsc;
before(async () => { smsc = await startTestSmsc({ acme: 's3cret' }); });
after(() => smsc.close());

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** Runs the CLI without blocking this process: the test SMSC lives here and must answer. */
function cli(args: string[], env: Record<string, string> = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['bin/switchboard.js', ...args], {
    env: { ...process.env, SWITCHBOARD_DATA_DIR: join(dir, 'data'), ...env }, timeout: 180_000, // tsx compiles the sources first: slow on a busy machine
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => { stdout += d; });
  child.stderr.on('data', (d) => { stderr += d; });
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })));
}

function problemsOf(text: string, env: Record<string, string> = {}, name = 'carriers.yaml'): string[] {
  try {
    parseCarriersText(text, name, env);
  } catch (err) {
    assert.ok(err instanceof CarriersFileError, String(err));
    return err.problems;
  }
  assert.fail('the file was accepted');
}

describe('the carriers file', () => {
  test('a valid YAML file loads with defaults filled and env: secrets resolved', () => {
    const config = parseCarriersText('smpp:\n  - name: smsc-1\n    host: 127.0.0.1\n    system_id: acme\n    password: env:SMPP_PW\n', 'c.yaml', { SMPP_PW: 'pw' });
    assert.equal(config.links.length, 1);
    assert.deepEqual({ ...config.links[0], config: undefined }, {
      name: 'smsc-1', kind: 'smpp', role: 'messaging', channels: ['sms'], target: 'smpp://127.0.0.1:2775 as acme', path: 'smpp[0]', config: undefined,
    });
    const bind = config.links[0]!.config as Record<string, unknown>;
    assert.equal(bind.password, 'pw');
    assert.equal(bind.port, 2775);
    assert.equal(bind.window, 10);
    assert.equal(bind.gsm7_data_coding, 0);
    assert.equal(bind.long_messages, 'udh');
  });

  test('JSON is read too, with the same checks', () => {
    const text = JSON.stringify({ smpp: [{ name: 'a', host: 'h', system_id: 'x', password: 'env:P', port: 70000 }] }, null, 2);
    assert.deepEqual(problemsOf(text, { P: 'p' }, 'carriers.json'), ['carriers.json:8:15 smpp[0].port: must be at most 65535']);
  });

  test('every problem is reported at once, each with its line, column and path', () => {
    const text = [
      'smpp:',
      '  - name: smsc-1',
      '    host: 127.0.0.1',
      '    password: plaintext',
      '    window: 0',
      '    long_messages: split',
      '    colour: blue',
      '  - name: smsc-1',
      '    host: 127.0.0.1',
      '    system_id: acme',
      '    password: env:UNSET_PASSWORD',
      'sip_trunks_typo: []',
      '',
    ].join('\n');
    assert.deepEqual(problemsOf(text).sort(), [
      'carriers.yaml:11:15 smpp[1].password: refers to the environment variable UNSET_PASSWORD, which is not set',
      'carriers.yaml:12:18 sip_trunks_typo: is not a known section; the sections are smpp, sip, whatsapp, http_sms, speech',
      'carriers.yaml:2:5 smpp[0].system_id: is required',
      'carriers.yaml:4:15 smpp[0].password: is a secret: write it as env:NAME and set that environment variable, not the value itself',
      'carriers.yaml:5:13 smpp[0].window: must be at least 1',
      'carriers.yaml:6:20 smpp[0].long_messages: must be one of: udh, message_payload',
      'carriers.yaml:7:13 smpp[0].colour: is not a known field',
    ].sort());
  });

  test('link names are unique across the file', () => {
    const entry = (n: string) => `  - name: ${n}\n    host: h\n    system_id: s\n    password: env:P\n`;
    assert.deepEqual(problemsOf(`smpp:\n${entry('one')}${entry('one')}`, { P: 'x' }), [
      'carriers.yaml:6:11 smpp[1].name: "one" is already the name of smpp[0]; names are unique across the file',
    ]);
  });

  test('a file that is not YAML says where it broke', () => {
    const [problem] = problemsOf('smpp:\n  - name: a\n   host: b\n');
    assert.match(problem!, /^carriers\.yaml:3:\d+ /);
  });
});

describe('switchboard carriers check', () => {
  const good = () => file('good.yaml', [
    'smpp:',
    '  - name: right',
    '    host: 127.0.0.1',
    `    port: ${smsc.port}`,
    '    system_id: acme',
    '    password: env:RIGHT_PW',
    '  - name: wrong',
    '    host: 127.0.0.1',
    `    port: ${smsc.port}`,
    '    system_id: acme',
    '    password: env:WRONG_PW',
    '  - name: nobody-home',
    '    host: 127.0.0.1',
    '    port: 1',
    '    system_id: acme',
    '    password: env:RIGHT_PW',
    '',
  ].join('\n'));

  test('binds each SMPP link as the server would and prints a table; a failing link exits 1', async () => {
    const r = await cli(['carriers', 'check', '--file', good()], { RIGHT_PW: 's3cret', WRONG_PW: 'guess' });
    assert.equal(r.status, 1, r.stderr);
    const lines = r.stdout.trim().split('\n');
    assert.match(lines[0]!, /^NAME\s+KIND\s+TARGET\s+STATUS\s+DETAIL$/);
    assert.match(lines[1]!, new RegExp(`^right\\s+smpp\\s+smpp://127\\.0\\.0\\.1:${smsc.port} as acme\\s+ok\\s+bound \\(transceiver\\) and unbound$`));
    assert.match(lines[2]!, /^wrong\s+smpp\s+.*FAILED\s+bind_transceiver refused: ESME_RINVPASWD \(0x0000000e\): invalid password$/);
    assert.match(lines[3]!, /^nobody-home\s+smpp\s+.*FAILED\s+cannot connect to 127\.0\.0\.1:1: connect ECONNREFUSED/);
    assert.ok(!r.stdout.includes('s3cret') && !r.stdout.includes('guess'), 'secrets are never printed');
    assert.deepEqual(smsc.binds.slice(-2).map((b) => b.ok).sort(), [false, true]);
  });

  test('--json gives the same rows, and exit 0 when every link works', async () => {
    const path = file('one.json', JSON.stringify({ smpp: [{ name: 'right', host: '127.0.0.1', port: smsc.port, system_id: 'acme', password: 'env:RIGHT_PW' }] }));
    const r = await cli(['carriers', 'check', '--json'], { RIGHT_PW: 's3cret', SWITCHBOARD_CARRIERS_FILE: path });
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.valid, true);
    assert.deepEqual(out.links.map((l: any) => [l.name, l.ok]), [['right', true]]);
  });

  test('a bad file: check and serve both stop with the same messages', async () => {
    const bad = file('bad.yaml', 'smpp:\n  - name: x\n    host: h\n    system_id: s\n    password: hunter2\n');
    const checked = await cli(['carriers', 'check', '--file', bad]);
    assert.equal(checked.status, 1);
    const expected = 'bad.yaml:5:15 smpp[0].password: is a secret: write it as env:NAME and set that environment variable, not the value itself';
    assert.ok(checked.stderr.includes(expected), checked.stderr);
    const served = await cli(['serve', '--port', '0'], { SWITCHBOARD_CARRIERS_FILE: bad });
    assert.equal(served.status, 1);
    assert.ok(served.stderr.includes(expected), served.stderr);
    assert.ok(served.stderr.includes('the carriers file'), served.stderr);
  });
});
