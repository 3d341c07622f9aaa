// Every error code Switchboard can answer with, in one place (ARCHITECTURE rule 4).
// The OpenAPI document lists this catalogue; docs/errors.md is written from it.
// A code is stable forever once published: add new ones, never rename.

export interface ProblemDefinition {
  status: number;
  title: string;
}

export const PROBLEMS = {
  // Request shape
  validation_failed: { status: 400, title: 'The request is not valid' },
  malformed_json: { status: 400, title: 'The request body is not valid JSON' },
  invalid_idempotency_key: { status: 400, title: 'The Idempotency-Key header is not valid' },
  invalid_cursor: { status: 400, title: 'starting_after is not an item of this list' },
  payload_too_large: { status: 413, title: 'The request body is too large' },
  unsupported_media_type: { status: 415, title: 'The request body must be uncompressed JSON in UTF-8 (application/json)' },
  not_found: { status: 404, title: 'Not found' },
  route_not_found: { status: 404, title: 'No such endpoint' },
  method_not_allowed: { status: 405, title: 'Method not allowed on this endpoint' },
  malformed_request: { status: 400, title: 'The request is not valid HTTP' },
  request_timeout: { status: 408, title: 'The request was not received in time' },
  uri_too_long: { status: 414, title: 'The request path is too long' },
  request_header_fields_too_large: { status: 431, title: 'The request headers are too large' },
  method_not_implemented: { status: 501, title: 'The request method is not implemented' },

  // Authentication and authorization
  missing_api_key: { status: 401, title: 'An API key is required' },
  invalid_api_key: { status: 401, title: 'The API key is not valid' },
  api_key_revoked: { status: 401, title: 'The API key has been revoked' },
  api_key_expired: { status: 401, title: 'The API key has expired' },
  invalid_metrics_token: { status: 401, title: 'GET /metrics needs the metrics bearer token' },
  insufficient_scope: { status: 403, title: 'The API key lacks a required scope' },
  ip_not_allowed: { status: 403, title: "The request's IP address is not on the key's allow-list" },
  trial_expired: { status: 403, title: 'The free trial has ended' },
  mode_not_supported: { status: 403, title: 'This endpoint is not available in this mode' },

  // Idempotency
  idempotency_key_reused: { status: 422, title: 'The Idempotency-Key was used with a different request' },
  idempotency_key_in_progress: { status: 409, title: 'A request with this Idempotency-Key is still in progress' },

  // Limits
  rate_limited: { status: 429, title: 'Too many requests' },
  concurrent_call_limit: { status: 429, title: 'The concurrent call limit of the plan is reached' },

  // Generic state
  invalid_state_transition: { status: 409, title: 'The resource is not in a state that allows this' },
  conflict: { status: 409, title: 'The request conflicts with the current state' },

  // Keys
  key_already_revoked: { status: 409, title: 'The API key is already revoked' },
  cannot_revoke_current_key: { status: 409, title: 'A key cannot revoke itself' },
  scope_not_held: { status: 403, title: 'A key can only grant or manage scopes it holds itself' },

  // Carriers
  carrier_not_configured: { status: 422, title: 'No carrier is configured for live traffic on this server' },
  carrier_unavailable: { status: 503, title: 'The carrier cannot be reached right now' },
  number_has_no_trunk: { status: 422, title: 'The number is not bound to a SIP trunk' },
  flow_not_supported: { status: 422, title: 'This carrier cannot run call flows yet' },
  provider_signature_invalid: { status: 401, title: 'The provider webhook is not signed with the configured secret' },
  provider_verification_failed: { status: 403, title: 'The provider webhook verification token does not match' },

  // Calls
  from_number_not_owned: { status: 422, title: 'The from number is not an active number of this account' },
  call_not_in_progress: { status: 409, title: 'The call is not in progress' },
  call_already_ended: { status: 409, title: 'The call has already ended' },

  // Recordings
  recording_not_ready: { status: 409, title: 'The recording is not ready yet' },
  recording_in_progress: { status: 409, title: 'The call is already being recorded' },
  recording_deleted: { status: 410, title: 'The recording was deleted; its audio and transcript are gone' },

  // Conferences
  conference_completed: { status: 409, title: 'The conference has ended' },
  conference_not_in_progress: { status: 409, title: 'The conference has not started' },
  participant_not_in_conference: { status: 409, title: 'The call is not in the conference now' },
  // Monitors
  call_not_monitorable: { status: 409, title: 'The call is not connected to another call' },
  call_already_monitored: { status: 409, title: 'The call\'s conversation is monitored already' },
  monitor_ended: { status: 409, title: 'The monitor has ended' },
  // Media streams
  stream_bidirectional_in_progress: { status: 409, title: 'The call already has a bidirectional media stream' },
  streams_unavailable: { status: 422, title: 'Media streams are not available on this call' },

  // Messages and numbers
  number_lacks_capability: { status: 422, title: 'The number cannot send on this channel' },
  whatsapp_window_closed: { status: 422, title: 'The WhatsApp 24-hour window is closed' },
  message_not_cancelable: { status: 409, title: 'The message has been handed to the carrier and cannot be canceled' },
  to_number_not_owned: { status: 422, title: 'The to number is not an active number of this account' },
  number_not_available: { status: 409, title: 'The phone number is not available' },
  number_not_active: { status: 409, title: 'The number is not active' },
  port_cancel_too_late: { status: 409, title: 'The port is too close to its FOC date to cancel' },

  // Webhooks
  webhook_url_not_allowed: { status: 422, title: 'The webhook URL is not allowed' },
  webhook_disabled: { status: 409, title: 'The webhook endpoint is disabled' },
  delivery_not_replayable: { status: 409, title: 'Only dead-lettered or failed deliveries can be replayed' },

  // AI
  document_rejected: { status: 422, title: 'A knowledge document was rejected' },
  agent_not_found: { status: 422, title: 'The AI agent does not exist' },
  number_has_no_agent: { status: 422, title: 'The number has no AI agent assigned' },
  agent_paused: { status: 409, title: 'The AI agent is paused' },

  // Queues
  queue_name_taken: { status: 409, title: 'A queue of this name already exists in this mode' },
  queue_not_empty: { status: 409, title: 'The queue still has callers in it' },
  queue_empty: { status: 409, title: 'No caller is waiting in the queue' },
  queue_member_not_waiting: { status: 409, title: 'The call is not waiting in this queue' },

  // Workers
  sip_user_taken: { status: 409, title: 'This SIP user name is already taken' },
  worker_busy: { status: 409, title: 'The worker is on a call' },
  worker_not_softphone: { status: 409, title: 'The worker is not reached at a softphone' },
  reach_not_allowed: { status: 422, title: 'The worker cannot be reached there' },

  // Server
  internal_error: { status: 500, title: 'Internal server error' },
  service_unavailable: { status: 503, title: 'The service is shutting down or not ready' },
  transaction_timeout: { status: 503, title: 'The database transaction took too long and was rolled back' },
} as const satisfies Record<string, ProblemDefinition>;

export type ProblemCode = keyof typeof PROBLEMS;

export const PROBLEM_TYPE_BASE = 'https://switchboard.dev/problems/';
