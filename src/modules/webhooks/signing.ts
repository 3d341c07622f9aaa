// Standard Webhooks signatures (https://www.standardwebhooks.com): the signed content is
// "<webhook-id>.<webhook-timestamp>.<body>", the key is the base64-decoded part of the
// `whsec_` secret, and `webhook-signature` is a space-separated list of "v1,<base64 HMAC>"
// (two entries while a rotated-out secret is still in its grace period).
import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

export function newSigningSecret(): string {
  return PREFIX + randomBytes(32).toString('base64');
}

function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
}

export function signatureHeader(id: string, timestampSeconds: number, body: string, secrets: string[]): string {
  const content = `${id}.${timestampSeconds}.${body}`;
  return secrets.map((s) => `v1,${createHmac('sha256', keyOf(s)).update(content).digest('base64')}`).join(' ');
}

export function webhookHeaders(id: string, timestampSeconds: number, body: string, secrets: string[]): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'Switchboard-Webhooks/1.0',
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signatureHeader(id, timestampSeconds, body, secrets),
  };
}
