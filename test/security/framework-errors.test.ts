// Requests the router or Node's HTTP parser refuse still get a problem with the usual
// headers (issue 11.12, issue 10.6): sent over a raw socket, since a client library would
// refuse to send most of them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;

before(async () => {
  t = await startTestServer();
});
after(() => t.close());

interface RawResponse { status: number; headers: Record<string, string>; body: any; closed: boolean }

/** Writes `request` as is and reads the answer until the server closes or 3 s pass. */
function rawHttp(request: string): Promise<RawResponse> {
  const { hostname, port } = new URL(t.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let data = '';
    let closed = false;
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      const [head = '', ...rest] = data.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const i = line.indexOf(':');
        headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
      }
      const text = rest.join('\r\n\r\n');
      let body: unknown = text;
      try { body = JSON.parse(text); } catch { /* not JSON: the assertion will say */ }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body, closed });
    };
    const timer = setTimeout(finish, 3000);
    socket.setEncoding('utf8');
    socket.on('data', (c) => {
      data += c;
      const [head, body] = data.split('\r\n\r\n');
      const length = /content-length:\s*(\d+)/i.exec(head ?? '')?.[1];
      if (body !== undefined && length !== undefined && Buffer.byteLength(body) >= Number(length) && !/connection:\s*close/i.test(head!)) finish();
    });
    socket.on('end', () => { closed = true; finish(); });
    socket.on('error', reject);
    socket.write(request);
  });
}

function assertProblem(res: RawResponse, status: number, code: string) {
  assert.equal(res.status, status, JSON.stringify(res));
  assert.match(res.headers['content-type'] ?? '', /^application\/problem\+json/);
  assert.equal(res.body.code, code);
  assert.equal(res.body.status, status);
  assert.ok(res.body.title && res.body.detail);
  assert.match(res.headers['x-request-id'] ?? '', /^req_/);
  assert.equal(res.body.request_id, res.headers['x-request-id']);
  assert.match(res.headers['x-switchboard-ratelimit-remaining'] ?? '', /^\d+$/);
  assert.match(res.headers['x-switchboard-ratelimit-reset'] ?? '', /^\d+$/);
}

const get = (target: string, extra = '') => `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n${extra}Connection: keep-alive\r\n\r\n`;

describe('router and parser errors are problems', () => {
  test('a malformed percent-encoding is a 400', async () => {
    assertProblem(await rawHttp(get('/v1/calls/%')), 400, 'malformed_request');
    assertProblem(await rawHttp(get('/v1/calls/%zz')), 400, 'malformed_request');
  });

  test('%ff%fe (not UTF-8) never reaches a handler as text: a 4xx problem', async () => {
    const res = await rawHttp(get('/v1/calls/%ff%fe'));
    assert.ok(res.status >= 400 && res.status < 500, JSON.stringify(res));
    assert.match(res.headers['content-type'] ?? '', /problem\+json/);
    assert.match(res.headers['x-request-id'] ?? '', /^req_/);
  });

  test('a path parameter over the length limit is a 414', async () => {
    assertProblem(await rawHttp(get(`/v1/calls/call_${'a'.repeat(200)}`)), 414, 'uri_too_long');
  });

  test('a head over 16 KiB is a 431, and the connection says it closes', async () => {
    const res = await rawHttp(get('/v1/account', `X-Big: ${'a'.repeat(17 * 1024)}\r\n`));
    assertProblem(res, 431, 'request_header_fields_too_large');
    assert.equal(res.headers.connection, 'close');
    assert.equal(res.closed, true);
  });

  test('a malformed request line is a 400', async () => {
    const res = await rawHttp('GET /v1/account XTTP/1.1\r\nHost: x\r\n\r\n');
    assertProblem(res, 400, 'malformed_request');
    assert.equal(res.headers.connection, 'close');
  });

  test('a bad Content-Length is a 400', async () => {
    const res = await rawHttp('POST /v1/keys HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: abc\r\n\r\n{}');
    assertProblem(res, 400, 'malformed_request');
  });

  test('an unknown method is a 501 problem', async () => {
    assertProblem(await rawHttp('FROB /v1/account HTTP/1.1\r\nHost: x\r\n\r\n'), 501, 'method_not_implemented');
  });

  test('an HTTP/1.1 request without Host is a 400 problem that names the header (issue 22.12)', async () => {
    const res = await rawHttp('GET /v1/account HTTP/1.1\r\nConnection: keep-alive\r\n\r\n');
    assertProblem(res, 400, 'malformed_request');
    assert.match(res.body.detail, /Host header/);
    assert.equal(res.headers.connection, 'close');
    assert.equal(res.closed, true);
    // HTTP/1.0 has no Host requirement: it reaches the route (here, its 401).
    assert.equal((await rawHttp('GET /v1/account HTTP/1.0\r\n\r\n')).status, 401);
  });

  test('the server answers normally afterwards', async () => {
    const res = await fetch(`${t.url}/healthz`);
    assert.equal(res.status, 200);
  });
});
