// A clean install on the supported Node 20 is quiet: no EBADENGINE warning from a dependency
// that wants a newer Node. light-my-request (Fastify's inject) asks for cookie@2, which wants
// Node 22; package.json pins it to cookie@1.1, which has the same functions and supports Node 18.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';

describe('installing Switchboard', () => {
  test('npm ci from the lockfile prints no EBADENGINE warning on this Node', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-install-'));
    try {
      copyFileSync('package.json', join(dir, 'package.json'));
      copyFileSync('package-lock.json', join(dir, 'package-lock.json'));
      // --dry-run resolves and checks every locked package (engines included) and writes
      // nothing; --offline keeps it off the network.
      const r = spawnSync('npm', ['ci', '--dry-run', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
      assert.equal(r.status, 0, r.stderr);
      assert.doesNotMatch(r.stdout + r.stderr, /EBADENGINE|Unsupported engine/, r.stderr);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the engines field names the Node the locked packages need', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
    // @redocly/cli (the OpenAPI lint in CI) needs 20.19+ on Node 20 and 22.12+ after it.
    assert.equal(pkg.engines.node, '^20.19.0 || >=22.12.0');
    const lock = JSON.parse(readFileSync('package-lock.json', 'utf8'));
    assert.equal(lock.packages[''].engines.node, pkg.engines.node);
  });

  test('Fastify inject, which uses the pinned cookie, still sends cookies', async () => {
    const app = Fastify();
    app.get('/echo', async (request) => ({ cookie: request.headers.cookie }));
    const res = await app.inject({ method: 'GET', url: '/echo', cookies: { session: 'a b', other: 'x' } });
    assert.deepEqual(res.json(), { cookie: 'session=a%20b; other=x' });
    await app.close();
  });
});
