// The two requests of OpenAI's audio API that live calls use, and nothing else: a request
// with the configured key and timeout, and an error that says what the server answered
// (OpenAI's `{"error":{"message":...}}`, or the start of whatever else came back).
import { trimmed } from './config.ts';

export interface AudioEndpoint {
  base_url: string;
  api_key?: string | undefined;
  timeout_seconds: number;
}

export class SpeechServiceError extends Error {
  constructor(readonly url: string, message: string, readonly status: number | null = null) {
    super(`${url}: ${message}`);
  }
}

/** POSTs `body` to {base_url}{path}; resolves with the 2xx response, else throws SpeechServiceError. */
export async function postAudioApi(endpoint: AudioEndpoint, path: string, body: BodyInit, headers: Record<string, string> = {}): Promise<Response> {
  const url = `${trimmed(endpoint.base_url)}${path}`;
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      body,
      headers: { ...headers, ...(endpoint.api_key ? { authorization: `Bearer ${endpoint.api_key}` } : {}) },
      signal: AbortSignal.timeout(endpoint.timeout_seconds * 1000),
    });
  } catch (err) {
    const error = err as Error;
    const why = error.name === 'TimeoutError' ? `no answer within ${endpoint.timeout_seconds} s` : (error.cause as Error | undefined)?.message ?? error.message;
    throw new SpeechServiceError(url, why);
  }
  if (response.ok) return response;
  const text = await response.text().catch(() => '');
  let message = text.slice(0, 200).trim();
  try {
    message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? message;
  } catch {
    // Not JSON: the start of the body says enough.
  }
  throw new SpeechServiceError(url, `${response.status} ${message || response.statusText}`, response.status);
}
