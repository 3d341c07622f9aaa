package switchboard

import (
	"errors"
	"fmt"
	"net/http"
)

// FieldError names one bad field of a request (a problem's errors[] entry).
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
	Code    string `json:"code"`
}

// APIError is a non-2xx answer: the RFC 9457 problem's fields and the response headers.
// Each status class has its own type embedding it (BadRequestError, NotFoundError, ...);
// use AsAPIError to read the fields whatever the class.
type APIError struct {
	StatusCode int          `json:"status"`
	Type       string       `json:"type"`
	Title      string       `json:"title"`
	Code       string       `json:"code"`
	Detail     string       `json:"detail"`
	RequestID  string       `json:"request_id"`
	Errors     []FieldError `json:"errors"`
	Header     http.Header  `json:"-"`
	Body       []byte       `json:"-"`
}

func (e *APIError) Error() string {
	text := e.Detail
	if text == "" {
		text = e.Title
	}
	if text == "" {
		text = string(e.Body)
	}
	code := e.Code
	if code == "" {
		code = "error"
	}
	return fmt.Sprintf("%d %s: %s", e.StatusCode, code, text)
}

func (e *APIError) apiError() *APIError { return e }

type (
	// BadRequestError is a 400: the request is malformed or a field is invalid (see Errors).
	BadRequestError struct{ *APIError }
	// AuthenticationError is a 401: the API key is missing, unknown, revoked or expired.
	AuthenticationError struct{ *APIError }
	// PermissionDeniedError is a 403: the key lacks the scope, or the address is not allowed.
	PermissionDeniedError struct{ *APIError }
	// NotFoundError is a 404.
	NotFoundError struct{ *APIError }
	// ConflictError is a 409: a state conflict, or an idempotency key still in progress.
	ConflictError struct{ *APIError }
	// UnprocessableEntityError is a 422: valid JSON the server cannot act on.
	UnprocessableEntityError struct{ *APIError }
	// RateLimitError is a 429: see Header's Retry-After.
	RateLimitError struct{ *APIError }
	// InternalServerError is any 5xx.
	InternalServerError struct{ *APIError }
)

// Unwrap lets errors.As find the *APIError inside a class error.
func (e *BadRequestError) Unwrap() error          { return e.APIError }
func (e *AuthenticationError) Unwrap() error      { return e.APIError }
func (e *PermissionDeniedError) Unwrap() error    { return e.APIError }
func (e *NotFoundError) Unwrap() error            { return e.APIError }
func (e *ConflictError) Unwrap() error            { return e.APIError }
func (e *UnprocessableEntityError) Unwrap() error { return e.APIError }
func (e *RateLimitError) Unwrap() error           { return e.APIError }
func (e *InternalServerError) Unwrap() error      { return e.APIError }

// AsAPIError returns the problem behind err when the server answered with an error status.
func AsAPIError(err error) (*APIError, bool) {
	var target *APIError
	if errors.As(err, &target) {
		return target, true
	}
	return nil, false
}

func classify(e *APIError) error {
	switch {
	case e.StatusCode == 400:
		return &BadRequestError{e}
	case e.StatusCode == 401:
		return &AuthenticationError{e}
	case e.StatusCode == 403:
		return &PermissionDeniedError{e}
	case e.StatusCode == 404:
		return &NotFoundError{e}
	case e.StatusCode == 409:
		return &ConflictError{e}
	case e.StatusCode == 422:
		return &UnprocessableEntityError{e}
	case e.StatusCode == 429:
		return &RateLimitError{e}
	case e.StatusCode >= 500:
		return &InternalServerError{e}
	}
	return e
}

// ConnectionError: the request got no HTTP answer (refused, reset, DNS...).
type ConnectionError struct {
	Err error
}

func (e *ConnectionError) Error() string { return "switchboard: connection failed: " + e.Err.Error() }
func (e *ConnectionError) Unwrap() error { return e.Err }

// TimeoutError: no answer within the timeout of an attempt (after every retry).
type TimeoutError struct {
	Timeout string
}

func (e *TimeoutError) Error() string { return "switchboard: request timed out after " + e.Timeout }

// WebhookVerificationError: a webhook whose signature or timestamp does not verify.
type WebhookVerificationError struct {
	Reason string
}

func (e *WebhookVerificationError) Error() string {
	return "switchboard: webhook not verified: " + e.Reason
}
