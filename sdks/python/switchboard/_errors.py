"""Typed errors: an APIError subclass per status class, exposing the RFC 9457 problem's fields."""
from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional


class SwitchboardError(Exception):
    """The base of every error this SDK raises."""


class APIError(SwitchboardError):
    """The server answered with a non-2xx status."""

    def __init__(self, status: int, problem: Any, headers: Mapping[str, str]):
        body: Dict[str, Any] = problem if isinstance(problem, dict) else {}
        self.status = status
        self.headers = headers
        self.problem = body
        self.type: Optional[str] = body.get("type")
        self.title: Optional[str] = body.get("title")
        self.code: Optional[str] = body.get("code")
        self.detail: Optional[str] = body.get("detail")
        self.request_id: Optional[str] = body.get("request_id") or headers.get("x-request-id")
        self.errors: List[Dict[str, Any]] = body.get("errors") or []
        text = self.detail or self.title or (problem if isinstance(problem, str) else "request failed")
        super().__init__(f"{status} {self.code or 'error'}: {text}")


class BadRequestError(APIError):
    pass


class AuthenticationError(APIError):
    pass


class PermissionDeniedError(APIError):
    pass


class NotFoundError(APIError):
    pass


class ConflictError(APIError):
    pass


class UnprocessableEntityError(APIError):
    pass


class RateLimitError(APIError):
    pass


class InternalServerError(APIError):
    pass


class APIConnectionError(SwitchboardError):
    """The request got no HTTP answer (refused, reset, DNS...)."""


class APITimeoutError(APIConnectionError):
    """No answer within the timeout."""


class WebhookVerificationError(SwitchboardError):
    """A webhook whose signature or timestamp does not verify."""


_BY_STATUS = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    422: UnprocessableEntityError,
    429: RateLimitError,
}


def error_for(status: int, problem: Any, headers: Mapping[str, str]) -> APIError:
    kind = _BY_STATUS.get(status) or (InternalServerError if status >= 500 else APIError)
    return kind(status, problem, headers)
