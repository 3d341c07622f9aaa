// Twilio's Programmable Messaging REST API as documented: POST a form (To, From, Body,
// MediaUrl..., StatusCallback) with HTTP Basic auth (Account SID, Auth Token), get the
// Message resource back (`sid`), or an error `{ code, message, more_info, status }`. And the
// X-Twilio-Signature scheme Twilio signs its callbacks with. No knowledge of our messages.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { accountUrl, type HttpSmsConfig } from './config.ts';

export class TwilioRejected extends Error {
  constructor(message: string, readonly code: number | null) {
    super(message);
  }
}

export class TwilioUnavailable extends Error {}

// Error codes that mean "later": rate limits, queue overflow, and credentials the operator fixes.
// https://www.twilio.com/docs/api/errors
const RETRY_LATER = new Set([20003, 20005, 20429, 20500, 20503, 30001]);

export interface TwilioSend { from: string; to: string; body: string | null; mediaUrls: string[]; statusCallback: string }

export async function createMessage(c: HttpSmsConfig, m: TwilioSend): Promise<string> {
  const form = new URLSearchParams({ To: m.to, From: m.from, StatusCallback: m.statusCallback });
  if (m.body) form.set('Body', m.body);
  for (const url of m.mediaUrls) form.append('MediaUrl', url);
  let res: Response;
  try {
    res = await fetch(`${accountUrl(c)}/Messages.json`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${c.account_sid}:${c.auth_token}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
      signal: AbortSignal.timeout(c.request_timeout_seconds * 1000),
    });
  } catch (err) {
    throw new TwilioUnavailable(`Twilio did not answer: ${(err as Error).message}`);
  }
  const body = (await res.json().catch(() => ({}))) as { sid?: string; code?: number; message?: string };
  if (res.ok && body.sid) return body.sid;
  const what = `${res.status}${body.code ? ` error ${body.code}` : ''}: ${body.message ?? 'no message'}`;
  if (res.status >= 500 || res.status === 429 || res.status === 401 || RETRY_LATER.has(body.code ?? -1)) throw new TwilioUnavailable(`Twilio answered ${what}`);
  throw new TwilioRejected(`Twilio refused the message (${what})`, body.code ?? null);
}

/**
 * X-Twilio-Signature: base64 HMAC-SHA1, keyed by the Auth Token, of the full URL Twilio
 * called followed by each POST parameter's name and value, sorted by name.
 */
export function twilioSignature(authToken: string, url: string, params: URLSearchParams): string {
  const names = [...new Set(params.keys())].sort();
  let data = url;
  for (const name of names) for (const value of params.getAll(name).sort()) data += name + value;
  return createHmac('sha1', authToken).update(Buffer.from(data, 'utf8')).digest('base64');
}

export function signatureOk(authToken: string, url: string, params: URLSearchParams, header: string | undefined): boolean {
  if (!header) return false;
  const a = Buffer.from(header);
  const b = Buffer.from(twilioSignature(authToken, url, params));
  return a.length === b.length && timingSafeEqual(a, b);
}
