// Official Node SDK for Switchboard. The client and models are generated from the OpenAPI
// document (scripts/generate-sdks); the runtime beside them is hand-written.
export { Switchboard } from './client.js';
export { PagePromise } from './pagination.js';
export { verifyWebhook, verifyStreamHandshake, DEFAULT_TOLERANCE_SECONDS } from './webhooks.js';
export { DEFAULTS } from './transport.js';
export { SDK_VERSION } from './version.js';
export * from './errors.js';
export { Switchboard as default } from './client.js';
