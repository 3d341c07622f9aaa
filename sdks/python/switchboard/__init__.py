"""Official Python SDK for Switchboard. The client and models are generated from the OpenAPI
document (scripts/generate-sdks); the runtime beside them is hand-written."""
from ._base_client import NOT_GIVEN, BinaryResponse, NotGiven, RequestOptions, ResponseInfo
from ._client import Switchboard
from ._errors import (
    APIConnectionError,
    APIError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    InternalServerError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    SwitchboardError,
    UnprocessableEntityError,
    WebhookVerificationError,
)
from ._models import *  # noqa: F401,F403
from ._pagination import Page
from ._transport import HttpxTransport, Transport, UrllibTransport
from ._version import __version__
from .webhooks import DEFAULT_TOLERANCE_SECONDS, verify_stream_handshake, verify_webhook

__all__ = [
    "Switchboard", "RequestOptions", "ResponseInfo", "BinaryResponse", "NotGiven", "NOT_GIVEN", "Page",
    "Transport", "UrllibTransport", "HttpxTransport", "verify_webhook", "verify_stream_handshake", "DEFAULT_TOLERANCE_SECONDS", "__version__",
    "SwitchboardError", "APIError", "BadRequestError", "AuthenticationError", "PermissionDeniedError", "NotFoundError",
    "ConflictError", "UnprocessableEntityError", "RateLimitError", "InternalServerError", "APIConnectionError",
    "APITimeoutError", "WebhookVerificationError",
]
