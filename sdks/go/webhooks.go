package switchboard

// Standard Webhooks verification (https://www.standardwebhooks.com/): HMAC-SHA256 over
// "id.timestamp.body" with the base64 secret after "whsec_"; any of the space-separated
// "v1,<base64>" signatures may match; the timestamp must be within the tolerance.

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// DefaultWebhookTolerance is how far webhook-timestamp may be from now.
const DefaultWebhookTolerance = 5 * time.Minute

type verifyConfig struct {
	tolerance time.Duration
	now       time.Time
}

// VerifyOption adjusts VerifyWebhook.
type VerifyOption func(*verifyConfig)

// WithTolerance sets how far webhook-timestamp may be from now (default 5 minutes).
func WithTolerance(d time.Duration) VerifyOption { return func(c *verifyConfig) { c.tolerance = d } }

// WithNow sets the time to check the timestamp against (default: time.Now()).
func WithNow(t time.Time) VerifyOption { return func(c *verifyConfig) { c.now = t } }

// VerifyWebhook checks the signature of a delivery on its raw body (never re-serialised JSON)
// and returns the event, or a *WebhookVerificationError.
func VerifyWebhook(payload []byte, header http.Header, secret string, opts ...VerifyOption) (*Event, error) {
	if err := verifySignature(payload, header, secret, opts); err != nil {
		return nil, err
	}
	event := new(Event)
	if err := json.Unmarshal(payload, event); err != nil {
		return nil, &WebhookVerificationError{"the payload is not a JSON event: " + err.Error()}
	}
	return event, nil
}

// VerifyStreamHandshake checks the signed WebSocket handshake of a media stream for url (the
// stream's url as given) and returns the stream id, or a *WebhookVerificationError. The
// signature covers the compact JSON {"stream_id": <webhook-id>, "url": <url>}.
func VerifyStreamHandshake(url string, header http.Header, secret string, opts ...VerifyOption) (string, error) {
	streamID := header.Get("webhook-id")
	if streamID == "" {
		return "", &WebhookVerificationError{"missing webhook-id header"}
	}
	var signed strings.Builder
	encoder := json.NewEncoder(&signed)
	encoder.SetEscapeHTML(false) // as JSON.stringify writes it: & < > stay as they are
	if err := encoder.Encode(struct {
		StreamID string `json:"stream_id"`
		URL      string `json:"url"`
	}{streamID, url}); err != nil {
		return "", &WebhookVerificationError{err.Error()}
	}
	if err := verifySignature([]byte(strings.TrimSuffix(signed.String(), "\n")), header, secret, opts); err != nil {
		return "", err
	}
	return streamID, nil
}

func verifySignature(payload []byte, header http.Header, secret string, opts []VerifyOption) error {
	cfg := verifyConfig{tolerance: DefaultWebhookTolerance, now: time.Now()}
	for _, o := range opts {
		o(&cfg)
	}
	id, timestamp, signatures := header.Get("webhook-id"), header.Get("webhook-timestamp"), header.Get("webhook-signature")
	if id == "" || timestamp == "" || signatures == "" {
		return &WebhookVerificationError{"missing webhook-id, webhook-timestamp or webhook-signature header"}
	}
	seconds, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil {
		return &WebhookVerificationError{"webhook-timestamp is not a Unix time in seconds"}
	}
	skew := math.Abs(float64(cfg.now.Unix() - seconds))
	if skew > cfg.tolerance.Seconds() {
		return &WebhookVerificationError{fmt.Sprintf("webhook-timestamp is %.0f s away from now (tolerance %s)", skew, cfg.tolerance)}
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return &WebhookVerificationError{"the secret is not base64 after whsec_"}
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + timestamp + "."))
	mac.Write(payload)
	expected := mac.Sum(nil)
	for _, entry := range strings.Split(signatures, " ") {
		version, value, found := strings.Cut(entry, ",")
		if !found || version != "v1" {
			continue
		}
		given, err := base64.StdEncoding.DecodeString(value)
		if err == nil && hmac.Equal(given, expected) {
			return nil
		}
	}
	return &WebhookVerificationError{"no webhook-signature matches the payload and secret"}
}
