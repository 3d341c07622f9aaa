// How long an Idempotency-Key and its answer are kept: 24 hours, as Stripe keeps them. A leaf
// of its own, because the sandbox clock (jobs/) keeps its advances' keys as long, and jobs/
// sits below the HTTP platform that imports it.
export const IDEMPOTENCY_KEY_RETENTION_MS = 24 * 60 * 60 * 1000;
