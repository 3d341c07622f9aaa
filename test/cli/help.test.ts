// `switchboard --help`, `switchboard <command> [<subcommand>] --help` and `--version`, run as
// an operator runs them: each answers with its own usage and exits 0, without opening a store,
// and the README's command list is the CLI's own usage, word for word.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

// Every command and subcommand the CLI dispatches (src/cli/main.ts and each command's file).
const SUBCOMMANDS: Record<string, string[]> = {
  serve: [],
  accounts: ['create', 'list', 'update'],
  keys: ['create', 'list', 'rotate', 'revoke'],
  numbers: ['import', 'bind'],
  carriers: ['check'],
  listen: [],
};

interface Run { status: number | null; stdout: string; stderr: string }

function cli(...args: string[]): Promise<Run> {
  // A data dir that cannot exist: help must not open, create or migrate a store.
  const env: Record<string, string | undefined> = { ...process.env, SWITCHBOARD_DATA_DIR: '/dev/null/no-store' };
  delete env.DATABASE_URL;
  const child = spawn(process.execPath, ['bin/switchboard.js', ...args], { env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => { stdout += d; });
  child.stderr.on('data', (d) => { stderr += d; });
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })));
}

function readmeCommandList(): string {
  const readme = readFileSync('README.md', 'utf8');
  const section = readme.slice(readme.indexOf('## The `switchboard` command'));
  const block = /```\n([\s\S]*?)```/.exec(section);
  assert.ok(block, 'the README has a command list');
  return block[1]!;
}

/** Usage entries: a line starting `switchboard ` with its indented continuation lines. */
function entries(text: string): string[] {
  return text.split(/\n(?=switchboard )/).map((e) => e.trimEnd()).filter((e) => e.startsWith('switchboard '));
}

describe('switchboard --help and --version', () => {
  test('switchboard --help prints the README command list, word for word, and exits 0', async () => {
    const r = await cli('--help');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, readmeCommandList());
    // No arguments and `help` answer the same.
    assert.equal((await cli()).stdout, r.stdout);
    assert.equal((await cli('help')).stdout, r.stdout);
  });

  test('every command answers --help with its own usage lines and exits 0', async () => {
    const readme = entries(readmeCommandList());
    for (const [command, subs] of Object.entries(SUBCOMMANDS)) {
      const r = await cli(command, '--help');
      assert.equal(r.status, 0, `${command} --help: ${r.stderr}`);
      assert.equal(r.stderr, '');
      const own = readme.filter((e) => e.startsWith(`switchboard ${command} `));
      assert.ok(own.length > 0, `the README lists ${command}`);
      assert.ok(r.stdout.startsWith(own.join('\n') + '\n\n'), `${command} --help starts with its README lines:\n${r.stdout}`);
      for (const sub of subs) assert.match(r.stdout, new RegExp(`^  ${sub} +\\S`, 'm'), `${command} --help names ${sub}`);
    }
  });

  test('every subcommand answers --help (and -h, after other flags) with its own usage and exits 0', async () => {
    const readme = entries(readmeCommandList());
    for (const [command, subs] of Object.entries(SUBCOMMANDS)) {
      for (const sub of subs) {
        const entry = readme.find((e) => e.startsWith(`switchboard ${command} ${sub} `));
        assert.ok(entry, `the README lists ${command} ${sub}`);
        const variants = [[command, sub, '--help']];
        if (command === 'numbers' && sub === 'import') variants.push([command, sub, '--account', 'acct_x', '--json', '-h']);
        for (const args of variants) {
          const r = await cli(...args);
          assert.equal(r.status, 0, `${args.join(' ')}: ${r.stderr}`);
          assert.equal(r.stderr, '');
          assert.ok(r.stdout.startsWith(entry + '\n\n'), `${args.join(' ')} starts with its usage:\n${r.stdout}`);
          // Its own usage only: no other subcommand's line.
          assert.equal(entries(r.stdout).length, 1, r.stdout);
          // And a sentence about what it does.
          assert.ok(r.stdout.slice(entry.length).trim().length > 20, r.stdout);
        }
      }
    }
    assert.equal((await cli('help', 'numbers', 'bind')).stdout, (await cli('numbers', 'bind', '--help')).stdout);
  });

  test('--version prints the package version', async () => {
    const r = await cli('--version');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, JSON.parse(readFileSync('package.json', 'utf8')).version + '\n');
  });

  test('a command without its subcommand is a usage error that shows the command usage', async () => {
    for (const command of ['accounts', 'keys', 'numbers', 'carriers']) {
      const r = await cli(command, 'frobnicate');
      assert.equal(r.status, 2, r.stderr);
      assert.ok(r.stderr.includes(entries(readmeCommandList()).filter((e) => e.startsWith(`switchboard ${command} `)).join('\n')), r.stderr);
    }
  });
});
