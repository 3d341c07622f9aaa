// Verifies Standard Webhooks signatures (webhook-id, webhook-timestamp, webhook-signature)
// on the raw body, the way https://www.standardwebhooks.com/ specifies: HMAC-SHA256 over
// "id.timestamp.body" with the base64 secret after `whsec_`, any of the space-separated
// "v1,<base64>" signatures may match, and the timestamp must be within the tolerance.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { WebhookVerificationError } from './errors.js';

export const DEFAULT_TOLERANCE_SECONDS = 300;

/**
 * Returns the parsed event when the signature verifies, else throws WebhookVerificationError.
 * `payload` must be the body exactly as received (string or bytes), never re-serialised JSON.
 */
export function verifyWebhook(payload, headers, secret, options = {}) {
  return JSON.parse(verifiedBody(payload, headers, secret, options).toString('utf8'));
}

/**
 * Verifies the signed handshake of a media stream (docs/media-streams.md): the signature covers
 * the compact JSON {"stream_id": <webhook-id>, "url": <the stream's url as given>}. Returns the
 * stream id, else throws WebhookVerificationError.
 */
export function verifyStreamHandshake(url, headers, secret, options = {}) {
  const get = (name) => (typeof headers?.get === 'function' ? headers.get(name) : headers?.[name] ?? headers?.[name.toLowerCase()]);
  const streamId = get('webhook-id');
  if (!streamId) throw new WebhookVerificationError('missing webhook-id header');
  verifiedBody(JSON.stringify({ stream_id: String(streamId), url }), headers, secret, options);
  return String(streamId);
}

function verifiedBody(payload, headers, secret, { toleranceSeconds = DEFAULT_TOLERANCE_SECONDS, now = Date.now() } = {}) {
  const get = (name) => (typeof headers?.get === 'function' ? headers.get(name) : headers?.[name] ?? headers?.[name.toLowerCase()]);
  const id = get('webhook-id');
  const timestamp = get('webhook-timestamp');
  const signatures = get('webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature header');
  if (!/^\d+$/.test(String(timestamp))) throw new WebhookVerificationError('webhook-timestamp is not a Unix time in seconds');
  const skew = Math.abs(now / 1000 - Number(timestamp));
  if (skew > toleranceSeconds) throw new WebhookVerificationError(`webhook-timestamp is ${Math.round(skew)} s away from now (tolerance ${toleranceSeconds} s)`);
  const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : Buffer.from(payload);
  const key = Buffer.from(String(secret).replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest();
  const matched = String(signatures).split(' ').some((entry) => {
    const [version, value] = entry.split(',', 2);
    if (version !== 'v1' || !value) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matched) throw new WebhookVerificationError('no webhook-signature matches the payload and secret');
  return body;
}
