export interface ClientOptions {
  /** Defaults to the SWITCHBOARD_API_KEY environment variable. */
  apiKey?: string;
  /** Defaults to SWITCHBOARD_BASE_URL, else http://127.0.0.1:8080. */
  baseUrl?: string;
  /** Milliseconds per attempt (default 30000). */
  timeout?: number;
  /** Retries after the first attempt (default 2). */
  maxRetries?: number;
  /** First backoff in ms (default 500); doubles per retry, with jitter. */
  initialRetryDelay?: number;
  /** Longest backoff in ms (default 8000). */
  maxRetryDelay?: number;
  /** Longest Retry-After honoured, in ms (default 60000). */
  maxRetryAfter?: number;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** A fetch implementation (default: the global fetch). */
  fetch?: typeof fetch;
}

export interface RequestOptions {
  timeout?: number;
  maxRetries?: number;
  /** Your own key for a write; by default one is generated and reused by every retry. */
  idempotencyKey?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export interface ResponseInfo {
  status: number;
  headers: Headers;
  requestId: string | undefined;
  /** True when the server replayed a stored response for a repeated Idempotency-Key. */
  idempotentReplayed: boolean;
  rateLimit: { remaining: number | undefined; reset: number | undefined };
}

/** A result, with the HTTP response it came in as `lastResponse` (not enumerable). */
export type WithResponse<T> = T & { readonly lastResponse: ResponseInfo };

export const DEFAULTS: Readonly<Required<Pick<ClientOptions, 'baseUrl' | 'timeout' | 'maxRetries' | 'initialRetryDelay' | 'maxRetryDelay' | 'maxRetryAfter'>>>;
