export type Mode = 'sandbox' | 'live';

export interface AccountRow {
  id: string;
  name: string;
  plan: string;
  /** Per-account overrides ("caps can be raised on request"); null means the plan's value. */
  rate_limit_per_minute: number | null;
  /** -1 means unlimited. */
  concurrent_calls_limit: number | null;
  trial_ends_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface ApiKeyRow {
  id: string;
  account_id: string;
  mode: Mode;
  name: string;
  /** SHA-256 of the whole secret, hex. The secret itself is never stored. */
  secret_hash: string;
  /** `sb_test_` or `sb_live_`. */
  prefix: string;
  last4: string;
  scopes: string; // JSON array
  allowed_ips: string; // JSON array of CIDRs; empty = any address
  status: 'active' | 'revoked';
  expires_at: string | null;
  rotated_from: string | null;
  created_at: string;
  revoked_at: string | null;
}

export interface IdempotencyKeyRow {
  id: string;
  account_id: string;
  mode: Mode;
  method: string;
  path: string;
  key: string;
  request_hash: string;
  state: 'in_progress' | 'completed';
  response_status: number | null;
  response_body: string | null;
  response_content_type: string | null;
  /** While in progress: when a crashed holder's claim may be taken over. */
  locked_until: string;
  created_at: string;
  expires_at: string;
}

export interface JobRow {
  id: string;
  kind: string;
  payload: string; // JSON
  run_at: string;
  state: 'pending' | 'running' | 'failed';
  attempts: number;
  max_attempts: number;
  locked_until: string | null;
  locked_by: string | null;
  last_error: string | null;
  /** Jobs on a sandbox test clock move when that clock is advanced; null = real time. */
  clock_id: string | null;
  /** Only this media node may claim the job: it acts on a live call held in that node's memory (migration 0021); null: any node. */
  node?: string | null;
  /** The lane whose own loop and slots claim the job (src/jobs/queue.ts, migration 0043); null: the default lane. */
  lane: string | null;
  created_at: string;
}

export interface SandboxClockRow {
  /** One test clock per account (sandbox mode only). */
  account_id: string;
  offset_ms: number;
  updated_at: string;
}

export interface SandboxClockAdvanceRow {
  /** An advance made with an Idempotency-Key: a retry finds it and does not move the clock again. */
  account_id: string;
  idempotency_key: string;
  /** The clock's offset right after this advance (what a retry answers). */
  offset_ms: number;
  created_at: string;
}

export interface NumberRow {
  id: string;
  account_id: string;
  mode: Mode;
  phone_number: string;
  country: string;
  type: 'local' | 'mobile' | 'toll_free';
  capabilities: string; // JSON array of voice|sms|mms|whatsapp
  status: 'active' | 'porting' | 'released';
  temporary: number;
  friendly_name: string | null;
  webhook_url: string | null;
  agent_id: string | null;
  port_id: string | null;
  /** On a temporary number: the number being ported that it stands in for (added by migration 0004). */
  temporary_for?: string | null;
  /** Names of the carriers-file links that serve this live number (migration 0011); null: the default link. */
  voice_trunk?: string | null;
  messaging_carrier?: string | null;
  /** Voice configuration for inbound calls (migration 0017): answer webhook, its fallback, a stored flow (JSON). */
  voice_url?: string | null;
  voice_fallback_url?: string | null;
  voice_flow?: string | null;
  created_at: string;
  updated_at: string;
  released_at: string | null;
}

export interface EventRow {
  id: string;
  account_id: string;
  mode: Mode;
  type: string;
  resource_type: string;
  resource_id: string;
  /** Per-resource order: 1 for a resource's first event, then 2, 3, ... */
  sequence: number;
  data: string; // JSON of the resource as GET returns it
  created_at: string;
}

/** The secret key's check value (src/platform/secret-key-check.ts): one row, id 'v1'. */
export interface SecretKeyCheckRow {
  id: string;
  sealed: string;
  created_at: string;
}

export interface PlatformTables {
  accounts: AccountRow;
  api_keys: ApiKeyRow;
  idempotency_keys: IdempotencyKeyRow;
  jobs: JobRow;
  sandbox_clocks: SandboxClockRow;
  sandbox_clock_advances: SandboxClockAdvanceRow;
  numbers: NumberRow;
  events: EventRow;
  secret_key_check: SecretKeyCheckRow;
}
