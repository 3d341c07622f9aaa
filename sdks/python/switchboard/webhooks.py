"""Verifies Standard Webhooks signatures (webhook-id, webhook-timestamp, webhook-signature) on
the raw body, as https://www.standardwebhooks.com/ specifies: HMAC-SHA256 over
"id.timestamp.body" with the base64 secret after `whsec_`; any of the space-separated
"v1,<base64>" signatures may match; the timestamp must be within the tolerance."""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from typing import Any, Mapping, Optional, Union

from ._errors import WebhookVerificationError
from ._models import Event

DEFAULT_TOLERANCE_SECONDS = 300


def _header(headers: Mapping[str, Any], name: str) -> Optional[str]:
    for key, value in headers.items():
        if key.lower() == name:
            return value[0] if isinstance(value, (list, tuple)) else value
    return None


def verify_webhook(payload: Union[bytes, str], headers: Mapping[str, Any], secret: str, *,
                   tolerance_seconds: float = DEFAULT_TOLERANCE_SECONDS, now: Optional[float] = None) -> Event:
    """Returns the event when the signature verifies, else raises WebhookVerificationError.
    `payload` must be the body exactly as received, never re-serialised JSON."""
    body = _verified_body(payload, headers, secret, tolerance_seconds, now)
    return Event.from_dict(json.loads(body))


def verify_stream_handshake(url: str, headers: Mapping[str, Any], secret: str, *,
                            tolerance_seconds: float = DEFAULT_TOLERANCE_SECONDS, now: Optional[float] = None) -> str:
    """Verifies a media stream's signed WebSocket handshake for `url` (the stream's url as given)
    and returns the stream id, else raises WebhookVerificationError. The signature covers the
    compact JSON {"stream_id": <webhook-id>, "url": <url>} (docs/media-streams.md)."""
    stream_id = _header(headers, "webhook-id")
    if not stream_id:
        raise WebhookVerificationError("missing webhook-id header")
    signed = json.dumps({"stream_id": stream_id, "url": url}, separators=(",", ":"), ensure_ascii=False)
    _verified_body(signed, headers, secret, tolerance_seconds, now)
    return stream_id


def _verified_body(payload: Union[bytes, str], headers: Mapping[str, Any], secret: str,
                   tolerance_seconds: float, now: Optional[float]) -> bytes:
    msg_id = _header(headers, "webhook-id")
    timestamp = _header(headers, "webhook-timestamp")
    signatures = _header(headers, "webhook-signature")
    if not msg_id or not timestamp or not signatures:
        raise WebhookVerificationError("missing webhook-id, webhook-timestamp or webhook-signature header")
    if not timestamp.isdigit():
        raise WebhookVerificationError("webhook-timestamp is not a Unix time in seconds")
    current = time.time() if now is None else now
    skew = abs(current - int(timestamp))
    if skew > tolerance_seconds:
        raise WebhookVerificationError(f"webhook-timestamp is {round(skew)} s away from now (tolerance {tolerance_seconds} s)")
    body = payload.encode("utf-8") if isinstance(payload, str) else bytes(payload)
    key = base64.b64decode(secret[len("whsec_"):] if secret.startswith("whsec_") else secret)
    expected = hmac.new(key, f"{msg_id}.{timestamp}.".encode("utf-8") + body, hashlib.sha256).digest()
    for entry in signatures.split(" "):
        version, _, value = entry.partition(",")
        if version != "v1" or not value:
            continue
        try:
            given = base64.b64decode(value)
        except ValueError:
            continue
        if hmac.compare_digest(given, expected):
            return body
    raise WebhookVerificationError("no webhook-signature matches the payload and secret")
