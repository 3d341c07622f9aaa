"""The HTTP core every generated method goes through: auth, User-Agent, timeouts, retries with
exponential backoff and jitter, an Idempotency-Key on writes (one key reused by every retry of
a request), problem bodies turned into typed errors, and response metadata."""
from __future__ import annotations

import email.utils
import json
import os
import platform
import random
import time
import urllib.parse
import uuid
from dataclasses import dataclass, field
from typing import Any, Dict, Mapping, Optional

from ._errors import APIConnectionError, APIError, APITimeoutError, error_for
from ._model import Model, convert, to_json
from ._pagination import Page
from ._transport import ConnectionFailed, Headers, TimedOut, Transport, UrllibTransport
from ._version import __version__

_WRITE_METHODS = {"POST", "PATCH", "PUT", "DELETE"}


class NotGiven:
    """Marks an argument the caller did not pass (None is a value: it sends JSON null)."""

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "NOT_GIVEN"


NOT_GIVEN = NotGiven()


@dataclass
class RequestOptions:
    """Per-request settings; anything left None uses the client's."""

    timeout: Optional[float] = None
    max_retries: Optional[int] = None
    idempotency_key: Optional[str] = None
    headers: Dict[str, str] = field(default_factory=dict)


@dataclass
class ResponseInfo:
    status: int
    headers: Headers
    request_id: Optional[str]
    idempotent_replayed: bool
    rate_limit_remaining: Optional[int]
    rate_limit_reset: Optional[int]


class BinaryResponse(bytes):
    """Bytes of a binary download, with `last_response` and `content_type`."""

    last_response: Optional[ResponseInfo] = None
    content_type: Optional[str] = None


def _path(value: Any) -> str:
    return urllib.parse.quote(str(value), safe="")


def _int_header(headers: Headers, name: str) -> Optional[int]:
    value = headers.get(name)
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def _describe(status: int, headers: Headers) -> ResponseInfo:
    return ResponseInfo(
        status=status,
        headers=headers,
        request_id=headers.get("x-request-id"),
        idempotent_replayed=headers.get("idempotent-replayed") == "true",
        rate_limit_remaining=_int_header(headers, "x-switchboard-ratelimit-remaining"),
        rate_limit_reset=_int_header(headers, "x-switchboard-ratelimit-reset"),
    )


def _retry_after_seconds(value: Optional[str]) -> Optional[float]:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    parsed = email.utils.parsedate_to_datetime(value) if value else None
    return None if parsed is None else max(0.0, parsed.timestamp() - time.time())


def _retryable(error: APIError) -> bool:
    s = error.status
    return s == 408 or s == 429 or s >= 500 or (s == 409 and error.code == "idempotency_key_in_progress")


def _strip(values: Optional[Mapping[str, Any]]) -> Optional[Dict[str, Any]]:
    if values is None:
        return None
    return {k: to_json(v) for k, v in values.items() if not isinstance(v, NotGiven)}


class BaseClient:
    def __init__(
        self,
        api_key: Optional[str] = None,
        *,
        base_url: Optional[str] = None,
        timeout: float = 30.0,
        max_retries: int = 2,
        initial_retry_delay: float = 0.5,
        max_retry_delay: float = 8.0,
        max_retry_after: float = 60.0,
        headers: Optional[Dict[str, str]] = None,
        transport: Optional[Transport] = None,
    ) -> None:
        self.api_key = api_key or os.environ.get("SWITCHBOARD_API_KEY")
        if not self.api_key:
            raise ValueError("Switchboard: pass api_key or set SWITCHBOARD_API_KEY")
        self.base_url = (base_url or os.environ.get("SWITCHBOARD_BASE_URL") or "http://127.0.0.1:8080").rstrip("/")
        self.timeout = timeout
        self.max_retries = max_retries
        self.initial_retry_delay = initial_retry_delay
        self.max_retry_delay = max_retry_delay
        self.max_retry_after = max_retry_after
        self.headers = dict(headers or {})
        self.transport = transport or UrllibTransport()
        self.user_agent = f"switchboard-python/{__version__} python/{platform.python_version()}"

    def close(self) -> None:
        self.transport.close()

    def __enter__(self) -> "BaseClient":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- used by the generated methods ------------------------------------------------------

    def _request(self, method: str, path: str, query: Optional[Mapping[str, Any]], body: Optional[Mapping[str, Any]],
                 spec: Any, options: Optional[RequestOptions]) -> Any:
        status, headers, data = self._send(method, path, _strip(query), _strip(body), options, "application/json")
        parsed = json.loads(data) if data else None
        result = convert(spec, parsed)
        if isinstance(result, Model):
            result.last_response = _describe(status, headers)
        return result

    def _page(self, method: str, path: str, query: Optional[Mapping[str, Any]], item_spec: Any,
              options: Optional[RequestOptions]) -> Page[Any]:
        params = _strip(query) or {}

        def fetch(p: Dict[str, Any]) -> Page[Any]:
            status, headers, data = self._send(method, path, p, None, options, "application/json")
            payload = json.loads(data)
            return Page(
                data=[convert(item_spec, item) for item in payload.get("data", [])],
                has_more=bool(payload.get("has_more")),
                next_cursor=payload.get("next_cursor"),
                last_response=_describe(status, headers),
                fetch=fetch,
                params=p,
            )

        return fetch(params)

    def _binary(self, method: str, path: str, query: Optional[Mapping[str, Any]], options: Optional[RequestOptions]) -> BinaryResponse:
        status, headers, data = self._send(method, path, _strip(query), None, options, "*/*")
        result = BinaryResponse(data)
        result.last_response = _describe(status, headers)
        result.content_type = headers.get("content-type")
        return result

    # -- retries ------------------------------------------------------------------------------

    def _backoff(self, attempt: int, retry_after: Optional[str]) -> float:
        from_header = _retry_after_seconds(retry_after)
        if from_header is not None:
            return min(from_header, self.max_retry_after)
        ceiling = min(self.max_retry_delay, self.initial_retry_delay * (2 ** attempt))
        return ceiling / 2 + random.random() * ceiling / 2

    def _send(self, method: str, path: str, query: Optional[Dict[str, Any]], body: Optional[Dict[str, Any]],
              options: Optional[RequestOptions], accept: str) -> Any:
        options = options or RequestOptions()
        url = self.base_url + path
        if query:
            pairs = [(k, _query_value(v)) for k, v in query.items() if v is not None]
            if pairs:
                url += "?" + urllib.parse.urlencode(pairs)
        headers = {
            "Accept": accept,
            "Authorization": f"Bearer {self.api_key}",
            "User-Agent": self.user_agent,
            **self.headers,
            **options.headers,
        }
        payload: Optional[bytes] = None
        if body is not None:
            headers["Content-Type"] = "application/json"
            payload = json.dumps(body).encode("utf-8")
        if method in _WRITE_METHODS:
            headers["Idempotency-Key"] = options.idempotency_key or f"sdk-python-{uuid.uuid4()}"
        max_retries = self.max_retries if options.max_retries is None else options.max_retries
        timeout = self.timeout if options.timeout is None else options.timeout

        attempt = 0
        while True:
            if attempt > 0:
                headers["X-Switchboard-Retry-Count"] = str(attempt)
            try:
                status, res_headers, data = self.transport.send(method, url, headers, payload, timeout)
            except TimedOut as err:
                if attempt < max_retries:
                    time.sleep(self._backoff(attempt, None))
                    attempt += 1
                    continue
                raise APITimeoutError(f"{method} {path} timed out after {timeout} s") from err
            except ConnectionFailed as err:
                if attempt < max_retries:
                    time.sleep(self._backoff(attempt, None))
                    attempt += 1
                    continue
                raise APIConnectionError(f"{method} {path} failed: {err}") from err
            if 200 <= status < 300:
                return status, res_headers, data
            problem: Any = data.decode("utf-8", "replace")
            if "json" in (res_headers.get("content-type") or ""):
                try:
                    problem = json.loads(data)
                except ValueError:
                    pass
            error = error_for(status, problem, res_headers)
            if attempt < max_retries and _retryable(error):
                time.sleep(self._backoff(attempt, res_headers.get("retry-after")))
                attempt += 1
                continue
            raise error


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
