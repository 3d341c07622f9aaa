// The docs' examples run as written on a machine without internet: the webhook URLs they
// subscribe are receivers on the reader's machine (loopback, which a sandbox key may use and
// which needs no DNS), and the SDK install steps of docs/sdks.md need no registry and no Go
// module proxy. Each install step is run here as the reader would run it.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { useSandboxAccount } from '../helpers/sandbox-account.ts';

const DOCS = ['README.md', 'docs/numbers.md', 'docs/sdks.md', 'sdks/node/README.md', 'sdks/python/README.md', 'sdks/go/README.md'];
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The code blocks of a markdown section (from its heading to the next heading of its level). */
function blocksOf(file: string, heading: string): string[] {
  const text = readFileSync(file, 'utf8');
  const start = text.indexOf(`\n${heading}\n`);
  assert.ok(start >= 0, `${file} has a section "${heading}"`);
  const level = heading.split(' ')[0];
  const rest = text.slice(start + heading.length + 2);
  const end = rest.search(new RegExp(`\\n${level} `));
  const section = end === -1 ? rest : rest.slice(0, end);
  return [...section.matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

function bash(script: string, cwd: string, env: Record<string, string>): { status: number | null; out: string } {
  const r = spawnSync('bash', ['-euo', 'pipefail', '-c', script], { cwd, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 300_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

describe('docs examples without internet', () => {
  // Without the test servers' SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE: what a reader's server allows.
  const sandbox = useSandboxAccount({ SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE: 'false' });

  test('every webhook URL the examples subscribe is on loopback, and a sandbox key may subscribe it', async () => {
    const urls = new Set<string>();
    for (const file of DOCS) {
      for (const m of readFileSync(file, 'utf8').matchAll(/https?:\/\/[^\s"'`)\]]+\/hooks\b/g)) urls.add(m[0]);
    }
    assert.ok(urls.size > 0);
    for (const url of urls) {
      assert.ok(LOOPBACK.has(new URL(url).hostname), `${url} needs DNS (and internet): use a receiver on this machine`);
      const res = await sandbox.api().post('/v1/webhooks', { url, events: ['call.*'] });
      assert.equal(res.status, 200, `${url}: ${JSON.stringify(res.body)}`);
      assert.equal((await sandbox.api().delete(`/v1/webhooks/${res.body.id}`)).status, 200);
    }
  });

  test("docs/numbers.md's port order, with its webhook_url, is accepted as written", async () => {
    const text = readFileSync('docs/numbers.md', 'utf8');
    const example = /\/v1\/numbers\/ports [^\n]*-d '(\{[\s\S]*?\})'/.exec(text);
    assert.ok(example, 'docs/numbers.md has the port order example');
    const res = await sandbox.api().post('/v1/numbers/ports', JSON.parse(example[1]!));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.status, 'submitted');
  });

  describe('the SDK install steps of docs/sdks.md, offline', () => {
    const blocks = blocksOf('docs/sdks.md', '## Install');
    const step = (needle: string) => {
      const block = blocks.find((b) => b.includes(needle));
      assert.ok(block, `docs/sdks.md's Install has a step with ${needle}`);
      return block;
    };
    const env = { SWITCHBOARD: resolve('.') };

    test('Node: npm install of the SDK folder, from a project outside the checkout', () => {
      const dir = mkdtempSync(join(tmpdir(), 'sb-sdk-node-'));
      try {
        writeFileSync(join(dir, 'package.json'), '{"name": "app", "private": true}\n');
        const r = bash(step('sdks/node'), dir, { ...env, npm_config_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false' });
        assert.equal(r.status, 0, r.out);
        assert.match(r.out, /^function$/m);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    test('Python: into a venv, without a package index', () => {
      const dir = mkdtempSync(join(tmpdir(), 'sb-sdk-python-'));
      try {
        const r = bash(step('switchboard-sdk.pth'), dir, { ...env, PIP_NO_INDEX: '1' });
        assert.equal(r.status, 0, r.out);
        assert.match(r.out, /<class 'switchboard\._client\.Switchboard'>/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    test('Go: a replace line, and no module proxy', () => {
      const dir = mkdtempSync(join(tmpdir(), 'sb-sdk-go-'));
      try {
        writeFileSync(join(dir, 'main.go'), 'package main\n\nimport (\n\t"fmt"\n\n\tsb "switchboard.dev/sdk/go/switchboard"\n)\n\nfunc main() { fmt.Println("sdk", sb.Version) }\n');
        const init = bash('go mod init example.com/app', dir, env);
        assert.equal(init.status, 0, init.out);
        const r = bash(`${step('-replace=switchboard.dev/sdk/go/switchboard')}\n./app`, dir, { ...env, GOPROXY: 'off', GOFLAGS: '' });
        assert.equal(r.status, 0, r.out);
        assert.match(r.out, /^sdk \d+\.\d+\.\d+$/m);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
