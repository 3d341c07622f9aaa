export { Switchboard } from './client.js';
export { PagePromise, type ListPage } from './pagination.js';
export { verifyWebhook, verifyStreamHandshake, DEFAULT_TOLERANCE_SECONDS, type WebhookHeaders } from './webhooks.js';
export { DEFAULTS, type ClientOptions, type RequestOptions, type ResponseInfo, type WithResponse } from './transport.js';
export const SDK_VERSION: string;
export * from './errors.js';
export type * from './models.js';
export { Switchboard as default } from './client.js';
