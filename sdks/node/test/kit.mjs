// Test fixtures: a real Switchboard server (sdks/testkit/serve.ts, started as a child process),
// a webhook receiver that keeps raw bodies, a recording proxy, and a server that never answers.
// Everything listens on 127.0.0.1.
import { spawn } from 'node:child_process';
import { createServer, request as httpRequest } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** Starts the server; resolves with its URL, keys and numbers. */
export async function startSwitchboard() {
  const child = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'sdks/testkit/serve.ts')], {
    cwd: repoRoot, stdio: ['pipe', 'pipe', 'inherit'], env: process.env,
  });
  const line = await new Promise((resolve, reject) => {
    const rl = createInterface({ input: child.stdout });
    rl.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`test server exited with ${code} before starting`)));
  });
  const kit = JSON.parse(line);
  kit.close = () => new Promise((resolve) => {
    child.once('exit', resolve);
    child.stdin.end();
  });
  return kit;
}

async function listen(server) {
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server.address().port;
}

/** Keeps every delivery's raw body and headers; answers 200. */
export async function startReceiver() {
  const deliveries = [];
  const waiters = new Set();
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      deliveries.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(200).end('ok');
      for (const w of waiters) w();
    });
  });
  const port = await listen(server);
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    deliveries,
    /** Resolves with the first delivery matching `predicate`. */
    waitFor(predicate, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = deliveries.find(predicate);
          if (found) { cleanup(); resolve(found); }
        };
        const timer = setTimeout(() => { cleanup(); reject(new Error(`no matching delivery in ${timeoutMs} ms (got ${deliveries.length})`)); }, timeoutMs);
        const cleanup = () => { clearTimeout(timer); waiters.delete(check); };
        waiters.add(check);
        check();
      });
    },
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }),
  };
}

/**
 * Forwards to `target`, recording each request. `dropFirstSuccessOf` ("METHOD /path"): the first
 * 2xx answer to it is swallowed and the connection closed. `failFirst` ({key, status, times}): the
 * first `times` requests to `key` are answered with that 5xx problem and never reach the server,
 * as when the server (or its gateway) fails.
 */
export async function startRecordingProxy(target, { dropFirstSuccessOf, failFirst } = {}) {
  const seen = [];
  let dropped = false;
  let failed = 0;
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const entry = { method: req.method, path: req.url, headers: req.headers, status: null };
      seen.push(entry);
      if (failFirst && failed < failFirst.times && failFirst.key === `${req.method} ${req.url.split('?')[0]}`) {
        failed++;
        entry.status = failFirst.status;
        res.writeHead(failFirst.status, {
          'content-type': 'application/problem+json', 'x-request-id': `req_proxy_${failed}`,
          // what the server's own 5xx carries, like every response
          'x-switchboard-ratelimit-remaining': '99', 'x-switchboard-ratelimit-reset': '0',
        });
        res.end(JSON.stringify(serverProblem(failFirst.status, `req_proxy_${failed}`)));
        return;
      }
      const upstream = httpRequest(target + req.url, { method: req.method, headers: req.headers }, (up) => {
        const body = [];
        up.on('data', (c) => body.push(c));
        up.on('end', () => {
          entry.status = up.statusCode;
          const key = `${req.method} ${req.url.split('?')[0]}`;
          if (!dropped && dropFirstSuccessOf === key && up.statusCode < 300) {
            dropped = true;
            entry.dropped = true;
            req.socket.destroy();
            return;
          }
          res.writeHead(up.statusCode, up.headers).end(Buffer.concat(body));
        });
      });
      upstream.on('error', () => req.socket.destroy());
      upstream.end(Buffer.concat(chunks));
    });
  });
  const port = await listen(server);
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }),
  };
}

/** The problem a failing server (or the gateway in front of it) answers with. */
function serverProblem(status, requestId) {
  const code = status === 503 ? 'service_unavailable' : 'internal_error';
  return { type: `https://switchboard.dev/problems/${code}`, title: code === 'internal_error' ? 'Internal error' : 'Service unavailable',
    status, detail: `the proxy answered ${status} in place of the server`, code, request_id: requestId };
}

/** Accepts connections and never answers: every request to it times out. */
export async function startSilentServer() {
  const sockets = new Set();
  let requests = 0;
  const server = createTcpServer((socket) => {
    // Count requests, not sockets: fetch may open a spare connection it never writes to.
    socket.on('data', (chunk) => { requests += (chunk.toString('latin1').match(/ HTTP\/1\.1\r\n/g) ?? []).length; });
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
  });
  const port = await listen(server);
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => requests,
    close: () => new Promise((resolve) => { for (const s of sockets) s.destroy(); server.close(resolve); }),
  };
}

/** A port nothing listens on. */
export async function closedPortUrl() {
  const server = createTcpServer();
  const port = await listen(server);
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}
