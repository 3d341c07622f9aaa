"""The Python SDK against a real Switchboard server: webhooks verified by the SDK's helper,
auto-pagination, every error class, retries with one Idempotency-Key, and timeouts."""
from __future__ import annotations

import base64
import json
import os
import time
import unittest
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Optional, Type

import switchboard
from switchboard import (
    APIConnectionError, APIError, APITimeoutError, AuthenticationError, BadRequestError, ConflictError,
    InternalServerError, NotFoundError, PermissionDeniedError, RateLimitError, RequestOptions, Switchboard,
    UnprocessableEntityError, WebhookVerificationError, verify_webhook,
)

from . import kit

server: Optional[kit.Switchboard] = None


def setUpModule() -> None:
    global server
    server = kit.Switchboard()


def tearDownModule() -> None:
    if server is not None:
        server.close()


def client(**options: Any) -> Switchboard:
    assert server is not None
    options.setdefault("base_url", server.url)
    return Switchboard(options.pop("api_key", server.sandbox_key), **options)


class WebhookTests(unittest.TestCase):
    def test_call_webhook_verifies_with_the_sdk_helper_and_tampering_is_refused(self) -> None:
        receiver = kit.Receiver()
        try:
            sb = client()
            endpoint = sb.create_webhook(url=receiver.url, events=["call.*"])
            self.assertTrue(endpoint.secret.startswith("whsec_"))
            call = sb.create_call(from_=server.sandbox_number, to="+14155550100")
            self.assertEqual(call.status, "queued")
            self.assertTrue(call.id.startswith("call_"))

            def completed(d: Any) -> bool:
                event = json.loads(d["body"])
                return event["type"] == "call.completed" and event["data"]["object"]["id"] == call.id

            delivery = receiver.wait_for(completed)
            event = verify_webhook(delivery["body"], delivery["headers"], endpoint.secret)
            self.assertIsInstance(event, switchboard.Event)
            self.assertEqual(event.type, "call.completed")
            self.assertEqual(event.id, delivery["headers"]["webhook-id"])
            self.assertEqual(event.data.object["status"], "completed")

            tampered = delivery["body"].replace(b'"completed"', b'"failed"')
            with self.assertRaises(WebhookVerificationError):
                verify_webhook(tampered, delivery["headers"], endpoint.secret)
            other = "whsec_" + base64.b64encode(b"another secret").decode()
            with self.assertRaises(WebhookVerificationError):
                verify_webhook(delivery["body"], delivery["headers"], other)
            later = int(delivery["headers"]["webhook-timestamp"]) + 301
            with self.assertRaisesRegex(WebhookVerificationError, "tolerance"):
                verify_webhook(delivery["body"], delivery["headers"], endpoint.secret, now=later)
            verify_webhook(delivery["body"], delivery["headers"], endpoint.secret, now=later, tolerance_seconds=600)
            sb.delete_webhook(endpoint.id)
        finally:
            receiver.close()


class PaginationTests(unittest.TestCase):
    def test_auto_pagination_walks_250_messages_across_pages_of_100(self) -> None:
        sb = client()
        to = "+14155550143"
        with ThreadPoolExecutor(max_workers=8) as pool:
            sent = list(pool.map(lambda i: sb.send_message(from_=server.sandbox_number, to=to, body=f"message {i}"), range(250)))
        first = sb.list_messages(to=to, limit=100)
        self.assertEqual(len(first.data), 100)
        self.assertTrue(first.has_more)
        self.assertIsInstance(first.data[0], switchboard.Message)
        seen = [m.id for m in first.auto_paging_iter()]
        self.assertEqual(len(seen), 250)
        self.assertEqual(len(set(seen)), 250)
        self.assertEqual(sorted(seen), sorted(m.id for m in sent))
        self.assertEqual(seen, sorted(seen, reverse=True), "newest first")


class ErrorTests(unittest.TestCase):
    def expect_problem(self, fn: Any, kind: Type[APIError], status: int, code: str) -> APIError:
        with self.assertRaises(kind) as caught:
            fn()
        error = caught.exception
        self.assertIsInstance(error, APIError)
        self.assertEqual(error.status, status)
        self.assertEqual(error.code, code)
        self.assertIsInstance(error.detail, str)
        self.assertTrue((error.request_id or "").startswith("req_"))
        self.assertIsNotNone(error.headers.get("X-Switchboard-RateLimit-Remaining"))
        return error

    def test_400_bad_request_names_each_bad_field(self) -> None:
        error = self.expect_problem(lambda: client().create_call(from_=server.sandbox_number, to="not a number", timeout=0),
                                    BadRequestError, 400, "validation_failed")
        self.assertGreaterEqual(len(error.errors), 1)
        for e in error.errors:
            self.assertIsInstance(e["field"], str)
            self.assertIsInstance(e["message"], str)

    def test_401_authentication_error_for_an_unknown_key(self) -> None:
        self.expect_problem(lambda: client(api_key="sb_test_nobodyhasthiskey").get_account(), AuthenticationError, 401, "invalid_api_key")

    def test_403_permission_denied_for_a_key_without_the_scope(self) -> None:
        key = client().create_key(name="read calls only", scopes=["calls:read"])
        reader = client(api_key=key.secret)
        self.expect_problem(lambda: reader.create_call(from_=server.sandbox_number, to="+14155550100"), PermissionDeniedError, 403, "insufficient_scope")

    def test_404_not_found_for_an_unknown_call(self) -> None:
        self.expect_problem(lambda: client().get_call("call_01jd8x0v6kf5b9w3t2q1r0p9n8"), NotFoundError, 404, "not_found")

    def test_409_conflict_when_rotating_a_revoked_key(self) -> None:
        sb = client()
        key = sb.create_key(name="short-lived")
        sb.revoke_key(key.id)
        self.expect_problem(lambda: sb.rotate_key(key.id), ConflictError, 409, "key_already_revoked")

    def test_422_unprocessable_for_a_from_number_not_owned(self) -> None:
        self.expect_problem(lambda: client().create_call(from_="+14155550199", to="+14155550100"), UnprocessableEntityError, 422, "from_number_not_owned")

    def test_429_rate_limit_error_once_the_bucket_is_empty(self) -> None:
        limited = client(api_key=server.limited_key, max_retries=0)
        error: Optional[RateLimitError] = None
        for _ in range(200):
            try:
                limited.get_account()
            except RateLimitError as e:
                error = e
                break
        self.assertIsNotNone(error)
        assert error is not None
        self.assertEqual(error.code, "rate_limited")
        self.assertGreaterEqual(int(error.headers.get("retry-after")), 1)

    def test_422_live_calls_without_a_carrier(self) -> None:
        live = client(api_key=server.live_key, max_retries=0)
        self.expect_problem(lambda: live.create_call(from_="+14155550100", to="+14155550101"), UnprocessableEntityError, 422, "carrier_not_configured")

    def test_5xx_internal_server_error_with_code_request_id_and_headers(self) -> None:
        proxy = kit.RecordingProxy(server.url, fail_first=("GET /v1/account", 500, 1))
        try:
            error = self.expect_problem(lambda: client(base_url=proxy.url, max_retries=0).get_account(), InternalServerError, 500, "internal_error")
            self.assertEqual(error.request_id, "req_proxy_1")
            self.assertEqual(len(proxy.seen), 1)
        finally:
            proxy.close()

    def test_connection_error_when_nothing_listens(self) -> None:
        nowhere = client(base_url=kit.closed_port_url(), max_retries=1, initial_retry_delay=0.01)
        with self.assertRaises(APIConnectionError) as caught:
            nowhere.get_account()
        self.assertNotIsInstance(caught.exception, APITimeoutError)


class RetryTests(unittest.TestCase):
    def test_429_is_retried_with_the_same_idempotency_key_and_creates_one_call(self) -> None:
        proxy = kit.RecordingProxy(server.url)
        try:
            limited = client(api_key=server.limited_key, base_url=proxy.url, max_retries=5)
            # The bucket gains a token every 3 s, so one can come back between the 429 that empties
            # it and the POST: that POST is simply accepted (no retry to see) and we try again.
            created = []
            for _ in range(3):
                for _ in range(200):
                    try:
                        limited.get_account(request_options=RequestOptions(max_retries=0))
                    except RateLimitError:
                        break
                seen_before = len(proxy.seen)
                created.append(limited.create_call(from_=server.limited_number, to="+14155550100").id)
                attempts = [r for r in proxy.seen[seen_before:] if r["method"] == "POST" and r["path"] == "/v1/calls"]
                if attempts[0]["status"] == 429:
                    break
            self.assertGreaterEqual(len(attempts), 2, f"expected a retry: {[(r['method'], r['path'], r['status']) for r in proxy.seen][-5:]}")
            self.assertEqual(attempts[0]["status"], 429)
            self.assertEqual(attempts[-1]["status"], 200)
            keys = {a["headers"]["idempotency-key"] for a in attempts}
            self.assertEqual(len(keys), 1)
            self.assertTrue(next(iter(keys)).startswith("sdk-python-"))
            self.assertTrue(attempts[0]["headers"]["user-agent"].startswith(f"switchboard-python/{switchboard.__version__} "))
            calls = [c.id for c in limited.list_calls(limit=100).auto_paging_iter()]
            self.assertEqual(sorted(calls), sorted(created), "each create made exactly one call")
        finally:
            proxy.close()

    def test_a_503_is_retried_with_the_same_idempotency_key_and_creates_one_call(self) -> None:
        proxy = kit.RecordingProxy(server.url, fail_first=("POST /v1/calls", 503, 2))
        try:
            sb = client(base_url=proxy.url, initial_retry_delay=0.05)
            to = "+14155550164"
            call = sb.create_call(from_=server.sandbox_number, to=to)
            attempts = [r for r in proxy.seen if r["method"] == "POST" and r["path"] == "/v1/calls"]
            self.assertEqual([a["status"] for a in attempts], [503, 503, 200])
            self.assertEqual(len({a["headers"]["idempotency-key"] for a in attempts}), 1)
            self.assertEqual([c.id for c in client().list_calls(to=to).auto_paging_iter()], [call.id])
        finally:
            proxy.close()

    def test_a_lost_response_is_retried_with_the_same_key_and_replayed(self) -> None:
        proxy = kit.RecordingProxy(server.url, drop_first_success_of="POST /v1/messages")
        try:
            sb = client(base_url=proxy.url, initial_retry_delay=0.05)
            to = "+14155550178"
            message = sb.send_message(from_=server.sandbox_number, to=to, body="exactly once")
            attempts = [r for r in proxy.seen if r["method"] == "POST" and r["path"] == "/v1/messages"]
            self.assertEqual(len(attempts), 2)
            self.assertTrue(attempts[0].get("dropped"))
            self.assertEqual(attempts[0]["headers"]["idempotency-key"], attempts[1]["headers"]["idempotency-key"])
            self.assertTrue(message.last_response.idempotent_replayed)
            self.assertEqual([m.id for m in sb.list_messages(to=to).auto_paging_iter()], [message.id])
        finally:
            proxy.close()

    def test_a_caller_supplied_idempotency_key_replays_the_first_result(self) -> None:
        sb = client()
        options = RequestOptions(idempotency_key=f"order-{time.time_ns()}")
        first = sb.create_call(from_=server.sandbox_number, to="+14155550100", request_options=options)
        again = sb.create_call(from_=server.sandbox_number, to="+14155550100", request_options=options)
        self.assertEqual(again.id, first.id)
        self.assertTrue(again.last_response.idempotent_replayed)


class TimeoutAndMetadataTests(unittest.TestCase):
    def test_a_request_with_no_answer_times_out_cleanly_after_the_retries(self) -> None:
        silent = kit.SilentServer()
        try:
            sb = client(base_url=silent.url, timeout=0.2, max_retries=1, initial_retry_delay=0.01)
            started = time.monotonic()
            with self.assertRaisesRegex(APITimeoutError, "timed out after 0.2 s"):
                sb.get_account()
            self.assertLess(time.monotonic() - started, 10)
            time.sleep(0.1)
            self.assertEqual(len(silent.connections), 2)
        finally:
            silent.close()

    def test_results_carry_the_raw_response(self) -> None:
        account = client().get_account()
        info = account.last_response
        self.assertEqual(info.status, 200)
        self.assertTrue(info.request_id.startswith("req_"))
        self.assertIsInstance(info.rate_limit_remaining, int)
        self.assertIsInstance(info.rate_limit_reset, int)

    def test_the_optional_httpx_transport_talks_to_the_server(self) -> None:
        try:
            import httpx  # noqa: F401
        except ImportError:
            if os.environ.get("SWITCHBOARD_SDK_REQUIRE_HTTPX"):
                raise
            self.skipTest("httpx is not installed (pip install switchboard-sdk[httpx])")
        sb = client(transport=switchboard.HttpxTransport())
        call = sb.create_call(from_=server.sandbox_number, to="+14155550100")
        self.assertEqual(sb.get_call(call.id).id, call.id)
        with self.assertRaises(NotFoundError):
            sb.get_call("call_01jd8x0v6kf5b9w3t2q1r0p9n8")
        sb.close()


if __name__ == "__main__":
    unittest.main()
