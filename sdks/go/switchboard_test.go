package switchboard_test

// The Go SDK against a real Switchboard server: webhooks verified by the SDK's helper,
// auto-pagination, every error class, retries with one Idempotency-Key, and timeouts.

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	sb "switchboard.dev/sdk/go/switchboard"
)

var kit *kitInfo

func TestMain(m *testing.M) {
	var err error
	kit, err = startSwitchboard()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	kit.stop()
	os.Exit(code)
}

func client(key string, opts ...sb.ClientOption) *sb.Client {
	return sb.NewClient(key, append([]sb.ClientOption{sb.WithBaseURL(kit.URL)}, opts...)...)
}

func TestCallWebhookVerifiesWithTheSDKHelper(t *testing.T) {
	ctx := context.Background()
	rcv := startReceiver()
	defer rcv.Close()
	c := client(kit.SandboxKey)
	endpoint, err := c.CreateWebhook(ctx, &sb.CreateWebhookRequest{URL: rcv.URL + "/hooks", Events: []string{"call.*"}})
	if err != nil {
		t.Fatal(err)
	}
	if !hasPrefix(endpoint.Secret, "whsec_") {
		t.Fatalf("secret %q", endpoint.Secret)
	}
	call, err := c.CreateCall(ctx, &sb.CreateCallRequest{From: kit.SandboxNumber, To: "+14155550100"})
	if err != nil {
		t.Fatal(err)
	}
	if call.Status != "queued" || !hasPrefix(call.ID, "call_") {
		t.Fatalf("call %+v", call)
	}
	d, err := rcv.waitFor(func(d delivery) bool {
		var e struct {
			Type string
			Data struct{ Object struct{ ID string } }
		}
		_ = json.Unmarshal(d.Body, &e)
		return e.Type == "call.completed" && e.Data.Object.ID == call.ID
	}, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	event, err := sb.VerifyWebhook(d.Body, d.Header, endpoint.Secret)
	if err != nil {
		t.Fatal(err)
	}
	if event.Type != "call.completed" || event.ID != d.Header.Get("webhook-id") || event.Data.Object["status"] != "completed" {
		t.Fatalf("event %+v", event)
	}

	var verr *sb.WebhookVerificationError
	tampered := bytes.Replace(d.Body, []byte(`"completed"`), []byte(`"failed"`), 1)
	if _, err := sb.VerifyWebhook(tampered, d.Header, endpoint.Secret); !errors.As(err, &verr) {
		t.Fatalf("tampered body: %v", err)
	}
	other := "whsec_" + base64.StdEncoding.EncodeToString([]byte("another secret"))
	if _, err := sb.VerifyWebhook(d.Body, d.Header, other); !errors.As(err, &verr) {
		t.Fatalf("other secret: %v", err)
	}
	ts, _ := strconv.ParseInt(d.Header.Get("webhook-timestamp"), 10, 64)
	later := time.Unix(ts+301, 0)
	if _, err := sb.VerifyWebhook(d.Body, d.Header, endpoint.Secret, sb.WithNow(later)); err == nil || !strings.Contains(err.Error(), "tolerance") {
		t.Fatalf("stale timestamp: %v", err)
	}
	if _, err := sb.VerifyWebhook(d.Body, d.Header, endpoint.Secret, sb.WithNow(later), sb.WithTolerance(10*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteWebhook(ctx, endpoint.ID); err != nil {
		t.Fatal(err)
	}
}

func TestAutoPagingWalks250Messages(t *testing.T) {
	ctx := context.Background()
	c := client(kit.SandboxKey)
	to := "+14155550144"
	sent := make([]string, 250)
	var wg sync.WaitGroup
	errs := make(chan error, 250)
	sem := make(chan struct{}, 8)
	for i := range sent {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			m, err := c.SendMessage(ctx, &sb.SendMessageRequest{From: kit.SandboxNumber, To: to, Body: sb.String(fmt.Sprintf("message %d", i))})
			if err != nil {
				errs <- err
				return
			}
			sent[i] = m.ID
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	first, err := c.ListMessages(ctx, &sb.ListMessagesParams{To: sb.String(to), Limit: sb.Int(100)})
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Data) != 100 || !first.HasMore {
		t.Fatalf("first page: %d items, has_more %v", len(first.Data), first.HasMore)
	}
	all, err := c.ListMessagesAutoPaging(ctx, &sb.ListMessagesParams{To: sb.String(to), Limit: sb.Int(100)}).All()
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	unique := map[string]bool{}
	for _, m := range all {
		seen = append(seen, m.ID)
		unique[m.ID] = true
	}
	if len(seen) != 250 || len(unique) != 250 {
		t.Fatalf("saw %d messages, %d unique", len(seen), len(unique))
	}
	if !sort.SliceIsSorted(seen, func(i, j int) bool { return seen[i] > seen[j] }) {
		t.Fatal("not newest first")
	}
	sort.Strings(seen)
	sort.Strings(sent)
	for i := range seen {
		if seen[i] != sent[i] {
			t.Fatalf("listed %s, sent %s", seen[i], sent[i])
		}
	}
}

func expectProblem[T error](t *testing.T, err error, status int, code string) *sb.APIError {
	t.Helper()
	var class T
	if !errors.As(err, &class) {
		t.Fatalf("expected %T, got %T: %v", class, err, err)
	}
	apiErr, ok := sb.AsAPIError(err)
	if !ok {
		t.Fatalf("not an APIError: %v", err)
	}
	if apiErr.StatusCode != status || apiErr.Code != code || apiErr.Detail == "" || !hasPrefix(apiErr.RequestID, "req_") {
		t.Fatalf("problem %+v", apiErr)
	}
	if apiErr.Header.Get("X-Switchboard-RateLimit-Remaining") == "" {
		t.Fatal("no rate-limit header on the error")
	}
	return apiErr
}

func TestErrorClasses(t *testing.T) {
	ctx := context.Background()
	c := client(kit.SandboxKey)

	t.Run("400 BadRequestError names each bad field", func(t *testing.T) {
		_, err := c.CreateCall(ctx, &sb.CreateCallRequest{From: kit.SandboxNumber, To: "not a number", Timeout: sb.Int(0)})
		p := expectProblem[*sb.BadRequestError](t, err, 400, "validation_failed")
		if len(p.Errors) == 0 || p.Errors[0].Field == "" || p.Errors[0].Message == "" {
			t.Fatalf("errors[] %+v", p.Errors)
		}
	})
	t.Run("401 AuthenticationError", func(t *testing.T) {
		_, err := client("sb_test_nobodyhasthiskey").GetAccount(ctx)
		expectProblem[*sb.AuthenticationError](t, err, 401, "invalid_api_key")
	})
	t.Run("403 PermissionDeniedError", func(t *testing.T) {
		key, err := c.CreateKey(ctx, &sb.CreateKeyRequest{Name: sb.String("read calls only"), Scopes: []string{"calls:read"}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = client(key.Secret).CreateCall(ctx, &sb.CreateCallRequest{From: kit.SandboxNumber, To: "+14155550100"})
		expectProblem[*sb.PermissionDeniedError](t, err, 403, "insufficient_scope")
	})
	t.Run("404 NotFoundError", func(t *testing.T) {
		_, err := c.GetCall(ctx, "call_01jd8x0v6kf5b9w3t2q1r0p9n8")
		expectProblem[*sb.NotFoundError](t, err, 404, "not_found")
	})
	t.Run("409 ConflictError", func(t *testing.T) {
		key, err := c.CreateKey(ctx, &sb.CreateKeyRequest{Name: sb.String("short-lived")})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.RevokeKey(ctx, key.ID); err != nil {
			t.Fatal(err)
		}
		_, err = c.RotateKey(ctx, key.ID, nil)
		expectProblem[*sb.ConflictError](t, err, 409, "key_already_revoked")
	})
	t.Run("422 UnprocessableEntityError", func(t *testing.T) {
		_, err := c.CreateCall(ctx, &sb.CreateCallRequest{From: "+14155550199", To: "+14155550100"})
		expectProblem[*sb.UnprocessableEntityError](t, err, 422, "from_number_not_owned")
	})
	t.Run("429 RateLimitError", func(t *testing.T) {
		limited := client(kit.LimitedKey, sb.WithMaxRetries(0))
		var err error
		for i := 0; i < 200 && err == nil; i++ {
			_, err = limited.GetAccount(ctx)
		}
		p := expectProblem[*sb.RateLimitError](t, err, 429, "rate_limited")
		if n, _ := strconv.Atoi(p.Header.Get("Retry-After")); n < 1 {
			t.Fatalf("Retry-After %q", p.Header.Get("Retry-After"))
		}
	})
	t.Run("422 carrier_not_configured for a live call without a carrier", func(t *testing.T) {
		_, err := client(kit.LiveKey, sb.WithMaxRetries(0)).CreateCall(ctx, &sb.CreateCallRequest{From: "+14155550100", To: "+14155550101"})
		expectProblem[*sb.UnprocessableEntityError](t, err, 422, "carrier_not_configured")
	})
	t.Run("5xx InternalServerError with the code, request id and headers (no retries)", func(t *testing.T) {
		proxy := startRecordingProxy(kit.URL, "")
		defer proxy.Close()
		proxy.failFirst("GET /v1/account", 500, 1)
		_, err := sb.NewClient(kit.SandboxKey, sb.WithBaseURL(proxy.URL), sb.WithMaxRetries(0)).GetAccount(ctx)
		p := expectProblem[*sb.InternalServerError](t, err, 500, "internal_error")
		if p.RequestID != "req_proxy_1" || len(proxy.requests("GET", "/v1/account")) != 1 {
			t.Fatalf("request id %q, attempts %d", p.RequestID, len(proxy.requests("GET", "/v1/account")))
		}
	})
	t.Run("ConnectionError when nothing listens", func(t *testing.T) {
		nowhere := sb.NewClient(kit.SandboxKey, sb.WithBaseURL(closedPortURL()), sb.WithMaxRetries(1), sb.WithRetryDelays(10*time.Millisecond, time.Second))
		_, err := nowhere.GetAccount(ctx)
		var conn *sb.ConnectionError
		if !errors.As(err, &conn) {
			t.Fatalf("expected ConnectionError, got %T: %v", err, err)
		}
	})
}

func TestRateLimitRetryReusesTheIdempotencyKeyAndCreatesOneCall(t *testing.T) {
	ctx := context.Background()
	proxy := startRecordingProxy(kit.URL, "")
	defer proxy.Close()
	limited := sb.NewClient(kit.LimitedKey, sb.WithBaseURL(proxy.URL), sb.WithMaxRetries(5))
	// The bucket gains a token every 3 s, so one can come back between the 429 that empties it
	// and the POST: that POST is simply accepted (no retry to see) and we try again.
	created := map[string]bool{}
	var attempts []seenRequest
	for round := 0; round < 3; round++ {
		for i := 0; i < 200; i++ {
			var rl *sb.RateLimitError
			if _, err := limited.GetAccount(ctx, sb.WithRequestMaxRetries(0)); errors.As(err, &rl) {
				break
			}
		}
		before := len(proxy.requests("POST", "/v1/calls"))
		call, err := limited.CreateCall(ctx, &sb.CreateCallRequest{From: kit.LimitedNumber, To: "+14155550100"})
		if err != nil {
			t.Fatal(err)
		}
		created[call.ID] = true
		attempts = proxy.requests("POST", "/v1/calls")[before:]
		if attempts[0].Status == 429 {
			break
		}
	}
	if len(attempts) < 2 || attempts[0].Status != 429 || attempts[len(attempts)-1].Status != 200 {
		t.Fatalf("attempts %+v", attempts)
	}
	key := attempts[0].Header.Get("Idempotency-Key")
	for _, a := range attempts {
		if a.Header.Get("Idempotency-Key") != key {
			t.Fatalf("keys differ: %q vs %q", key, a.Header.Get("Idempotency-Key"))
		}
	}
	if !hasPrefix(key, "sdk-go-") || !hasPrefix(attempts[0].Header.Get("User-Agent"), "switchboard-go/"+sb.Version+" ") {
		t.Fatalf("key %q, user agent %q", key, attempts[0].Header.Get("User-Agent"))
	}
	calls, err := limited.ListCallsAutoPaging(ctx, &sb.ListCallsParams{Limit: sb.Int(100)}).All()
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != len(created) {
		t.Fatalf("calls %v, created %v: each create must make exactly one call", calls, created)
	}
	for _, c := range calls {
		if !created[c.ID] {
			t.Fatalf("calls %v, created %v: each create must make exactly one call", calls, created)
		}
	}
}

func TestServiceUnavailableIsRetriedWithOneIdempotencyKey(t *testing.T) {
	ctx := context.Background()
	proxy := startRecordingProxy(kit.URL, "")
	defer proxy.Close()
	proxy.failFirst("POST /v1/calls", 503, 2)
	c := sb.NewClient(kit.SandboxKey, sb.WithBaseURL(proxy.URL), sb.WithRetryDelays(50*time.Millisecond, time.Second))
	to := "+14155550165"
	call, err := c.CreateCall(ctx, &sb.CreateCallRequest{From: kit.SandboxNumber, To: to})
	if err != nil {
		t.Fatal(err)
	}
	attempts := proxy.requests("POST", "/v1/calls")
	if len(attempts) != 3 || attempts[0].Status != 503 || attempts[1].Status != 503 || attempts[2].Status != 200 {
		t.Fatalf("attempts %+v", attempts)
	}
	for _, a := range attempts {
		if a.Header.Get("Idempotency-Key") != attempts[0].Header.Get("Idempotency-Key") {
			t.Fatalf("keys differ: %+v", attempts)
		}
	}
	calls, err := c.ListCallsAutoPaging(ctx, &sb.ListCallsParams{To: sb.String(to)}).All()
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 1 || calls[0].ID != call.ID {
		t.Fatalf("calls %v", calls)
	}
}

func TestLostResponseIsRetriedAndReplayed(t *testing.T) {
	ctx := context.Background()
	proxy := startRecordingProxy(kit.URL, "POST /v1/messages")
	defer proxy.Close()
	c := sb.NewClient(kit.SandboxKey, sb.WithBaseURL(proxy.URL), sb.WithRetryDelays(50*time.Millisecond, time.Second))
	to := "+14155550179"
	var res sb.Response
	m, err := c.SendMessage(ctx, &sb.SendMessageRequest{From: kit.SandboxNumber, To: to, Body: sb.String("exactly once")}, sb.WithResponseInto(&res))
	if err != nil {
		t.Fatal(err)
	}
	attempts := proxy.requests("POST", "/v1/messages")
	if len(attempts) != 2 || !attempts[0].Dropped || attempts[0].Header.Get("Idempotency-Key") != attempts[1].Header.Get("Idempotency-Key") {
		t.Fatalf("attempts %+v", attempts)
	}
	if !res.IdempotentReplayed {
		t.Fatal("the retry was not a replay")
	}
	all, err := c.ListMessagesAutoPaging(ctx, &sb.ListMessagesParams{To: sb.String(to)}).All()
	if err != nil || len(all) != 1 || all[0].ID != m.ID {
		t.Fatalf("messages %v, %v", all, err)
	}
}

func TestCallerIdempotencyKeyReplays(t *testing.T) {
	ctx := context.Background()
	c := client(kit.SandboxKey)
	key := fmt.Sprintf("order-%d", time.Now().UnixNano())
	first, err := c.CreateCall(ctx, &sb.CreateCallRequest{From: kit.SandboxNumber, To: "+14155550100"}, sb.WithIdempotencyKey(key))
	if err != nil {
		t.Fatal(err)
	}
	var res sb.Response
	again, err := c.CreateCall(ctx, &sb.CreateCallRequest{From: kit.SandboxNumber, To: "+14155550100"}, sb.WithIdempotencyKey(key), sb.WithResponseInto(&res))
	if err != nil || again.ID != first.ID || !res.IdempotentReplayed {
		t.Fatalf("again %v (%v), replayed %v", again, err, res.IdempotentReplayed)
	}
}

func TestTimeoutIsCleanAfterRetries(t *testing.T) {
	silent := startSilentServer()
	defer silent.Close()
	c := sb.NewClient(kit.SandboxKey, sb.WithBaseURL(silent.URL), sb.WithTimeout(200*time.Millisecond), sb.WithMaxRetries(1), sb.WithRetryDelays(10*time.Millisecond, time.Second))
	started := time.Now()
	_, err := c.GetAccount(context.Background())
	var timeout *sb.TimeoutError
	if !errors.As(err, &timeout) || !strings.Contains(err.Error(), "200ms") {
		t.Fatalf("expected TimeoutError, got %T: %v", err, err)
	}
	if time.Since(started) > 10*time.Second {
		t.Fatal("took too long")
	}
	time.Sleep(100 * time.Millisecond)
	if silent.connections() != 2 {
		t.Fatalf("%d connections, want 2 (one retry)", silent.connections())
	}
}

func TestCallerContextCancelsWithoutRetrying(t *testing.T) {
	silent := startSilentServer()
	defer silent.Close()
	c := sb.NewClient(kit.SandboxKey, sb.WithBaseURL(silent.URL), sb.WithMaxRetries(3))
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	if _, err := c.GetAccount(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("expected context.DeadlineExceeded, got %T: %v", err, err)
	}
}

func TestResponseMetadata(t *testing.T) {
	var res sb.Response
	if _, err := client(kit.SandboxKey).GetAccount(context.Background(), sb.WithResponseInto(&res)); err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != 200 || !hasPrefix(res.RequestID, "req_") || res.RateLimitRemaining < 0 || res.RateLimitReset < 0 {
		t.Fatalf("response %+v", res)
	}
}
