import type { Event } from './models.js';

export const DEFAULT_TOLERANCE_SECONDS: number;

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/** Verifies the Standard Webhooks signature on the raw body and returns the event; throws WebhookVerificationError. */
export function verifyWebhook(
  payload: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options?: { toleranceSeconds?: number; now?: number },
): Event;

/** Verifies a media stream's signed WebSocket handshake for `url` (the stream's url as given); returns the stream id; throws WebhookVerificationError. */
export function verifyStreamHandshake(
  url: string,
  headers: WebhookHeaders,
  secret: string,
  options?: { toleranceSeconds?: number; now?: number },
): string;
