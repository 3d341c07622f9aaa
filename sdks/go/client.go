// Package switchboard is the official Go SDK for the Switchboard API. The methods and models
// (client_gen.go, models_gen.go) are generated from the OpenAPI document; this file is the
// hand-written HTTP core: auth, User-Agent, timeouts, retries with exponential backoff and
// jitter, an Idempotency-Key on writes (one key reused by every retry), typed errors.
package switchboard

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"math"
	mrand "math/rand"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Client calls the Switchboard API. Make one with NewClient and share it.
type Client struct {
	apiKey            string
	baseURL           string
	httpClient        *http.Client
	timeout           time.Duration
	maxRetries        int
	initialRetryDelay time.Duration
	maxRetryDelay     time.Duration
	maxRetryAfter     time.Duration
	headers           http.Header
	userAgent         string
}

// ClientOption configures a Client.
type ClientOption func(*Client)

// WithBaseURL sets the server (default SWITCHBOARD_BASE_URL, else http://127.0.0.1:8080).
func WithBaseURL(u string) ClientOption {
	return func(c *Client) { c.baseURL = strings.TrimRight(u, "/") }
}

// WithTimeout sets the time each attempt may take (default 30 s).
func WithTimeout(d time.Duration) ClientOption { return func(c *Client) { c.timeout = d } }

// WithMaxRetries sets the retries after the first attempt (default 2).
func WithMaxRetries(n int) ClientOption { return func(c *Client) { c.maxRetries = n } }

// WithRetryDelays sets the first backoff (default 500 ms; it doubles per retry, with jitter) and the longest (default 8 s).
func WithRetryDelays(initial, max time.Duration) ClientOption {
	return func(c *Client) { c.initialRetryDelay, c.maxRetryDelay = initial, max }
}

// WithMaxRetryAfter caps how long a Retry-After is honoured (default 60 s).
func WithMaxRetryAfter(d time.Duration) ClientOption { return func(c *Client) { c.maxRetryAfter = d } }

// WithHTTPClient sets the *http.Client (default: a client of its own).
func WithHTTPClient(h *http.Client) ClientOption { return func(c *Client) { c.httpClient = h } }

// WithHeader adds a header to every request.
func WithHeader(name, value string) ClientOption {
	return func(c *Client) { c.headers.Add(name, value) }
}

// NewClient makes a client; an empty apiKey means SWITCHBOARD_API_KEY.
func NewClient(apiKey string, opts ...ClientOption) *Client {
	if apiKey == "" {
		apiKey = os.Getenv("SWITCHBOARD_API_KEY")
	}
	base := os.Getenv("SWITCHBOARD_BASE_URL")
	if base == "" {
		base = "http://127.0.0.1:8080"
	}
	c := &Client{
		apiKey: apiKey, baseURL: strings.TrimRight(base, "/"), httpClient: &http.Client{},
		timeout: 30 * time.Second, maxRetries: 2, initialRetryDelay: 500 * time.Millisecond,
		maxRetryDelay: 8 * time.Second, maxRetryAfter: 60 * time.Second, headers: http.Header{},
		userAgent: "switchboard-go/" + Version + " " + runtime.Version(),
	}
	for _, o := range opts {
		o(c)
	}
	return c
}

// Response is what came back with a result (see WithResponseInto).
type Response struct {
	StatusCode         int
	Header             http.Header
	RequestID          string
	IdempotentReplayed bool
	// RateLimitRemaining and RateLimitReset are -1 when the header was absent.
	RateLimitRemaining int
	RateLimitReset     int
}

type requestConfig struct {
	timeout        *time.Duration
	maxRetries     *int
	idempotencyKey string
	headers        http.Header
	into           *Response
}

// RequestOption adjusts one request.
type RequestOption func(*requestConfig)

// WithIdempotencyKey sends your key instead of a generated one.
func WithIdempotencyKey(key string) RequestOption {
	return func(r *requestConfig) { r.idempotencyKey = key }
}

// WithRequestTimeout overrides the client's timeout for this request.
func WithRequestTimeout(d time.Duration) RequestOption {
	return func(r *requestConfig) { r.timeout = &d }
}

// WithRequestMaxRetries overrides the client's retries for this request.
func WithRequestMaxRetries(n int) RequestOption { return func(r *requestConfig) { r.maxRetries = &n } }

// WithRequestHeader adds a header to this request.
func WithRequestHeader(name, value string) RequestOption {
	return func(r *requestConfig) { r.headers.Add(name, value) }
}

// WithResponseInto stores the final HTTP response's metadata in *into.
func WithResponseInto(into *Response) RequestOption { return func(r *requestConfig) { r.into = into } }

// String, Int, Int64, Bool and Float64 return pointers, for optional fields and parameters.
func String(v string) *string    { return &v }
func Int(v int64) *int64         { return &v }
func Int64(v int64) *int64       { return &v }
func Bool(v bool) *bool          { return &v }
func Float64(v float64) *float64 { return &v }

func (c *Client) do(ctx context.Context, method, path string, query url.Values, body any, out any, opts []RequestOption) error {
	data, err := c.send(ctx, method, path, query, body, "application/json", opts)
	if err != nil {
		return err
	}
	if len(data) == 0 || out == nil {
		return nil
	}
	return json.Unmarshal(data, out)
}

func (c *Client) doBinary(ctx context.Context, method, path string, query url.Values, opts []RequestOption) ([]byte, error) {
	return c.send(ctx, method, path, query, nil, "*/*", opts)
}

type attemptResult struct {
	status int
	header http.Header
	body   []byte
}

func (c *Client) send(ctx context.Context, method, path string, query url.Values, body any, accept string, opts []RequestOption) ([]byte, error) {
	cfg := requestConfig{headers: http.Header{}}
	for _, o := range opts {
		o(&cfg)
	}
	target := c.baseURL + path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	var payload []byte
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return nil, err
		}
	}
	if method != http.MethodGet && cfg.idempotencyKey == "" {
		cfg.idempotencyKey = "sdk-go-" + randomHex(16)
	}
	maxRetries, timeout := c.maxRetries, c.timeout
	if cfg.maxRetries != nil {
		maxRetries = *cfg.maxRetries
	}
	if cfg.timeout != nil {
		timeout = *cfg.timeout
	}

	for attempt := 0; ; attempt++ {
		res, err := c.attempt(ctx, method, target, payload, accept, &cfg, attempt, timeout)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if attempt < maxRetries {
				if err := c.sleep(ctx, c.backoff(attempt, "")); err != nil {
					return nil, err
				}
				continue
			}
			return nil, err
		}
		if cfg.into != nil {
			*cfg.into = describe(res)
		}
		if res.status >= 200 && res.status < 300 {
			return res.body, nil
		}
		apiErr := &APIError{StatusCode: res.status, Header: res.header, Body: res.body}
		if strings.Contains(res.header.Get("Content-Type"), "json") {
			_ = json.Unmarshal(res.body, apiErr)
			apiErr.StatusCode = res.status
		}
		if apiErr.RequestID == "" {
			apiErr.RequestID = res.header.Get("X-Request-Id")
		}
		if attempt < maxRetries && retryable(apiErr) {
			if err := c.sleep(ctx, c.backoff(attempt, res.header.Get("Retry-After"))); err != nil {
				return nil, err
			}
			continue
		}
		return nil, classify(apiErr)
	}
}

func (c *Client) attempt(ctx context.Context, method, target string, payload []byte, accept string, cfg *requestConfig, attempt int, timeout time.Duration) (*attemptResult, error) {
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var reader io.Reader
	if payload != nil {
		reader = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(actx, method, target, reader)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", accept)
	req.Header.Set("Authorization", "Bearer "+c.apiKey)
	req.Header.Set("User-Agent", c.userAgent)
	for name, values := range c.headers {
		req.Header[name] = values
	}
	for name, values := range cfg.headers {
		req.Header[name] = values
	}
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if cfg.idempotencyKey != "" {
		req.Header.Set("Idempotency-Key", cfg.idempotencyKey)
	}
	if attempt > 0 {
		req.Header.Set("X-Switchboard-Retry-Count", strconv.Itoa(attempt))
	}
	res, err := c.httpClient.Do(req)
	if err != nil {
		if errors.Is(actx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
			return nil, &TimeoutError{Timeout: timeout.String()}
		}
		return nil, &ConnectionError{Err: err}
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		if errors.Is(actx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
			return nil, &TimeoutError{Timeout: timeout.String()}
		}
		return nil, &ConnectionError{Err: err}
	}
	return &attemptResult{status: res.StatusCode, header: res.Header, body: data}, nil
}

func retryable(e *APIError) bool {
	s := e.StatusCode
	return s == 408 || s == 429 || s >= 500 || (s == 409 && e.Code == "idempotency_key_in_progress")
}

// backoff: Retry-After when the server sent one (capped), else exponential with jitter.
func (c *Client) backoff(attempt int, retryAfter string) time.Duration {
	if retryAfter != "" {
		if seconds, err := strconv.ParseFloat(retryAfter, 64); err == nil {
			return minDuration(time.Duration(seconds*float64(time.Second)), c.maxRetryAfter)
		}
		if at, err := http.ParseTime(retryAfter); err == nil {
			return minDuration(time.Until(at), c.maxRetryAfter)
		}
	}
	ceiling := minDuration(time.Duration(float64(c.initialRetryDelay)*math.Pow(2, float64(attempt))), c.maxRetryDelay)
	return ceiling/2 + time.Duration(mrand.Int63n(int64(ceiling/2)+1))
}

func (c *Client) sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func describe(r *attemptResult) Response {
	number := func(name string) int {
		v, err := strconv.Atoi(r.header.Get(name))
		if err != nil {
			return -1
		}
		return v
	}
	return Response{
		StatusCode: r.status, Header: r.header, RequestID: r.header.Get("X-Request-Id"),
		IdempotentReplayed: r.header.Get("Idempotent-Replayed") == "true",
		RateLimitRemaining: number("X-Switchboard-RateLimit-Remaining"),
		RateLimitReset:     number("X-Switchboard-RateLimit-Reset"),
	}
}

func minDuration(a, b time.Duration) time.Duration {
	if a < b {
		return a
	}
	return b
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

// bodyOf keeps a nil request pointer from being sent as JSON null.
func bodyOf[T any](b *T) any {
	if b == nil {
		return nil
	}
	return b
}
