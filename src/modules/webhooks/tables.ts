// Row types of the webhooks module: subscriptions (endpoints), the per-mode default signing
// secret used for a resource's own webhook_url, deliveries (one per event x target) and
// their attempts. Signing secrets are stored encrypted (see secret-box.ts), never in clear.
import type { Mode } from '../../store/platform-tables.ts';

export interface WebhookEndpointRow {
  id: string;
  account_id: string;
  mode: Mode;
  url: string;
  description: string | null;
  /** JSON array: ["*"], exact event types, or "<prefix>.*" patterns. */
  events: string;
  enabled: number;
  /** Why the platform disabled it (e.g. "gone" after a 410); null when enabled or disabled by the user. */
  disabled_reason: string | null;
  secret_ciphertext: string;
  /** The secret replaced by the last rotation, still signing until previous_secret_expires_at. */
  previous_secret_ciphertext: string | null;
  previous_secret_expires_at: string | null;
  /** `http`: POSTed to url; `listen`: a listen session, sent down its event stream (listen.ts). */
  transport: WebhookTransport;
  /** Listen sessions: when a listener last connected or disconnected. */
  listener_seen_at: string | null;
  created_at: string;
  updated_at: string;
}

export type WebhookTransport = 'http' | 'listen';

export interface WebhookDefaultSecretRow {
  account_id: string;
  mode: Mode;
  secret_ciphertext: string;
  previous_secret_ciphertext: string | null;
  previous_secret_expires_at: string | null;
  created_at: string;
  updated_at: string;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'dead';

export interface WebhookDeliveryRow {
  id: string;
  account_id: string;
  mode: Mode;
  event_id: string;
  event_type: string;
  resource_id: string;
  /** null: the resource's own webhook_url, signed with the default secret. */
  webhook_id: string | null;
  url: string;
  status: DeliveryStatus;
  /** Attempts made, over the delivery's whole life (replays included). */
  attempt_count: number;
  /** attempt_count when the current round started (0, or the count at the last replay). */
  round_start: number;
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  succeeded_at: string | null;
  dead_lettered_at: string | null;
  replay_count: number;
  created_at: string;
  updated_at: string;
}

export interface WebhookAttemptRow {
  id: string;
  delivery_id: string;
  attempt: number;
  attempted_at: string;
  status_code: number | null;
  latency_ms: number;
  response_excerpt: string | null;
  error: string | null;
  next_attempt_at: string | null;
}

export interface WebhookTables {
  webhook_endpoints: WebhookEndpointRow;
  webhook_default_secrets: WebhookDefaultSecretRow;
  webhook_deliveries: WebhookDeliveryRow;
  webhook_attempts: WebhookAttemptRow;
}
