// The Graph API's message endpoint as the WhatsApp Cloud API documents it: POST a message
// object with a bearer token, get `messages[0].id` (the wamid) back, or an error object
// `{ error: { message, type, code, error_subcode, error_data: { details } } }`. Knows nothing
// of our messages; the carrier decides what a failure means for one.
import type { WhatsAppConfig } from './config.ts';
import { messagesUrl } from './config.ts';

/** Meta refused this message for good (bad recipient, template not approved...). */
export class GraphRejected extends Error {
  constructor(message: string, readonly code: number | null) {
    super(message);
  }
}

/** The Graph API could not take it now (network, 5xx, rate limits, a token the operator must fix). */
export class GraphUnavailable extends Error {}

// Error codes that mean "later", not "never": throughput and rate limits, and a token or
// permission problem the operator fixes without the customer re-sending.
// https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes
const RETRY_LATER = new Set([1, 2, 4, 10, 80007, 130429, 131000, 131016, 131048, 131056, 133004, 190, 200, 131005]);

export interface GraphError { message?: string; type?: string; code?: number; error_subcode?: number; error_data?: { details?: string } }

export function describeGraphError(e: GraphError): string {
  const details = e.error_data?.details && e.error_data.details !== e.message ? `: ${e.error_data.details}` : '';
  return `(#${e.code ?? '?'}) ${e.message ?? 'no message'}${details}`;
}

/** Sends one Graph message object; resolves with its wamid. */
export async function postMessage(config: WhatsAppConfig, payload: object): Promise<string> {
  let res: Response;
  try {
    res = await fetch(messagesUrl(config), {
      method: 'POST',
      headers: { authorization: `Bearer ${config.access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ messaging_product: 'whatsapp', recipient_type: 'individual', ...payload }),
      signal: AbortSignal.timeout(config.request_timeout_seconds * 1000),
    });
  } catch (err) {
    throw new GraphUnavailable(`the Graph API did not answer: ${(err as Error).message}`);
  }
  const text = await res.text().catch(() => '');
  let body: { messages?: { id?: string }[]; error?: GraphError } = {};
  try {
    body = JSON.parse(text);
  } catch {
    // a proxy's HTML page: judged by the status below
  }
  const wamid = body.messages?.[0]?.id;
  if (res.ok && wamid) return wamid;
  const error = body.error;
  if (!error) throw new GraphUnavailable(`the Graph API answered ${res.status} without an error object`);
  if (res.status >= 500 || res.status === 429 || RETRY_LATER.has(error.code ?? -1)) {
    throw new GraphUnavailable(`the Graph API answered ${res.status} ${describeGraphError(error)}`);
  }
  throw new GraphRejected(`WhatsApp refused the message: ${describeGraphError(error)}`, error.code ?? null);
}
