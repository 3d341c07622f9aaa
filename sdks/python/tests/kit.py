"""Test fixtures: a real Switchboard server (sdks/testkit/serve.ts, started as a child process),
a webhook receiver that keeps raw bodies, a recording proxy and a server that never answers.
Everything listens on 127.0.0.1."""
from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, List, Optional, Tuple

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


class Switchboard:
    """The server and what it created: url, sandbox_key, live_key, sandbox_number, limited_key, limited_number."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            ["node", "--import", "tsx", os.path.join(REPO_ROOT, "sdks/testkit/serve.ts")],
            cwd=REPO_ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=sys.stderr,
        )
        line = self.process.stdout.readline()  # type: ignore[union-attr]
        if not line:
            raise RuntimeError(f"test server exited with {self.process.wait()} before starting")
        self.__dict__.update(json.loads(line))

    def close(self) -> None:
        self.process.stdin.close()  # type: ignore[union-attr]
        self.process.wait(timeout=60)


def _serve(handler: type) -> ThreadingHTTPServer:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


class Receiver:
    """Keeps every delivery's raw body and headers; answers 200."""

    def __init__(self) -> None:
        self.deliveries: List[Dict[str, Any]] = []
        self.changed = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                with receiver.changed:
                    receiver.deliveries.append({"headers": {k.lower(): v for k, v in self.headers.items()}, "body": body})
                    receiver.changed.notify_all()
                self.send_response(200)
                self.send_header("content-length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args: Any) -> None:
                pass

        self.server = _serve(Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks"

    def wait_for(self, predicate: Callable[[Dict[str, Any]], bool], timeout: float = 30.0) -> Dict[str, Any]:
        deadline = time.monotonic() + timeout
        with self.changed:
            while True:
                for d in self.deliveries:
                    if predicate(d):
                        return d
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no matching delivery in {timeout} s (got {len(self.deliveries)})")
                self.changed.wait(left)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class RecordingProxy:
    """Forwards to `target`, recording each request (method, path, headers) and the status answered.
    `drop_first_success_of` ("METHOD /path"): the first 2xx answer to it is swallowed and the
    connection closed, as when the network fails after the server did the work.
    `fail_first` ("METHOD /path", status, times): the first `times` requests to it are answered
    with that 5xx problem and never reach the server, as when the server (or its gateway) fails."""

    def __init__(self, target: str, drop_first_success_of: Optional[str] = None, fail_first: Optional[Tuple[str, int, int]] = None) -> None:
        self.seen: List[Dict[str, Any]] = []
        host, port = target.replace("http://", "").split(":")
        proxy = self
        state = {"dropped": False, "failed": 0}

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _forward(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                entry: Dict[str, Any] = {"method": self.command, "path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "status": None}
                proxy.seen.append(entry)
                if fail_first and state["failed"] < fail_first[2] and fail_first[0] == f"{self.command} {self.path.split('?')[0]}":
                    state["failed"] += 1
                    entry["status"] = fail_first[1]
                    self._answer_problem(fail_first[1], f"req_proxy_{state['failed']}")
                    return
                upstream = http.client.HTTPConnection(host, int(port), timeout=30)
                upstream.request(self.command, self.path, body=body or None, headers={k: v for k, v in self.headers.items()})
                res = upstream.getresponse()
                data = res.read()
                entry["status"] = res.status
                key = f"{self.command} {self.path.split('?')[0]}"
                if not state["dropped"] and drop_first_success_of == key and res.status < 300:
                    state["dropped"] = True
                    entry["dropped"] = True
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                self.send_response(res.status)
                for name, value in res.getheaders():
                    if name.lower() not in ("transfer-encoding", "connection", "content-length"):
                        self.send_header(name, value)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _answer_problem(self, status: int, request_id: str) -> None:
                code = "service_unavailable" if status == 503 else "internal_error"
                data = json.dumps({"type": f"https://switchboard.dev/problems/{code}", "title": code.replace("_", " ").capitalize(), "status": status,
                                   "detail": f"the proxy answered {status} in place of the server", "code": code, "request_id": request_id}).encode()
                self.send_response(status)
                self.send_header("content-type", "application/problem+json")
                self.send_header("x-request-id", request_id)
                # what the server's own 5xx carries, like every response
                self.send_header("x-switchboard-ratelimit-remaining", "99")
                self.send_header("x-switchboard-ratelimit-reset", "0")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PATCH = do_DELETE = _forward

            def log_message(self, *args: Any) -> None:
                pass

        self.server = _serve(Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class SilentServer:
    """Accepts connections and never answers: every request to it times out."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.connections: List[socket.socket] = []
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections.append(conn)

    def close(self) -> None:
        for c in self.connections:
            c.close()
        self.sock.close()


def closed_port_url() -> str:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return f"http://127.0.0.1:{port}"
