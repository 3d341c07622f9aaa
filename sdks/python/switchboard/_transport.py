"""HTTP transports. The default uses only the standard library (urllib); HttpxTransport uses
httpx when it is installed (`pip install switchboard-sdk[httpx]`) for connection pooling.
A transport sends one request and returns (status, headers, body) or raises
ConnectionFailed / TimedOut; retries and errors are the client's job."""
from __future__ import annotations

import socket
import urllib.error
import urllib.request
from typing import Any, Dict, Mapping, Optional, Tuple


class ConnectionFailed(Exception):
    pass


class TimedOut(ConnectionFailed):
    pass


class Headers(Dict[str, str]):
    """Response headers with lower-case names; `get` is case-insensitive."""

    def __init__(self, items: Any = ()):
        super().__init__()
        for name, value in items:
            self[name.lower()] = value

    def get(self, name: str, default: Any = None) -> Any:  # type: ignore[override]
        return super().get(name.lower(), default)


Response = Tuple[int, Headers, bytes]


class Transport:
    def send(self, method: str, url: str, headers: Mapping[str, str], body: Optional[bytes], timeout: float) -> Response:
        raise NotImplementedError

    def close(self) -> None:
        pass


class UrllibTransport(Transport):
    def __init__(self) -> None:
        # No proxies from the environment: an API client talks to the base URL it was given.
        self._opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    def send(self, method: str, url: str, headers: Mapping[str, str], body: Optional[bytes], timeout: float) -> Response:
        request = urllib.request.Request(url, data=body, headers=dict(headers), method=method)
        try:
            with self._opener.open(request, timeout=timeout) as res:
                return res.status, Headers(res.headers.items()), res.read()
        except urllib.error.HTTPError as err:
            try:
                data = err.read()
            except (socket.timeout, TimeoutError) as exc:
                raise TimedOut(str(exc)) from exc
            return err.code, Headers(err.headers.items()), data
        except urllib.error.URLError as err:
            if isinstance(err.reason, (socket.timeout, TimeoutError)):
                raise TimedOut(str(err.reason)) from err
            raise ConnectionFailed(str(err.reason)) from err
        except (socket.timeout, TimeoutError) as err:
            raise TimedOut(str(err)) from err
        except (ConnectionError, OSError) as err:
            raise ConnectionFailed(str(err)) from err


class HttpxTransport(Transport):
    def __init__(self, client: Any = None) -> None:
        import httpx  # optional dependency

        self._httpx = httpx
        self._client = client or httpx.Client(trust_env=False)

    def send(self, method: str, url: str, headers: Mapping[str, str], body: Optional[bytes], timeout: float) -> Response:
        httpx = self._httpx
        try:
            res = self._client.request(method, url, headers=dict(headers), content=body, timeout=timeout)
        except httpx.TimeoutException as err:
            raise TimedOut(str(err)) from err
        except httpx.TransportError as err:
            raise ConnectionFailed(str(err)) from err
        return res.status_code, Headers(res.headers.items()), res.content

    def close(self) -> None:
        self._client.close()
