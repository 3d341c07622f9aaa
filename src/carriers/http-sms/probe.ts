// `switchboard carriers check` for an HTTP provider link: fetches the account resource with
// the credentials (GET /2010-04-01/Accounts/{sid}.json), which proves origin, SID and token.
import type { ProbeResult } from '../config/registry.ts';
import type { HttpSmsConfig } from './config.ts';
import { accountUrl } from './config.ts';

export async function probeTwilio(c: HttpSmsConfig, timeoutMs: number): Promise<ProbeResult> {
  const url = `${accountUrl(c)}.json`;
  try {
    const res = await fetch(url, {
      headers: { authorization: `Basic ${Buffer.from(`${c.account_sid}:${c.auth_token}`).toString('base64')}` }, signal: AbortSignal.timeout(timeoutMs),
    });
    const body = (await res.json().catch(() => ({}))) as { friendly_name?: string; status?: string; code?: number; message?: string };
    if (res.ok) return { ok: body.status !== 'suspended' && body.status !== 'closed', detail: `account "${body.friendly_name ?? '?'}" is ${body.status ?? 'unknown'}` };
    return { ok: false, detail: `${res.status} from Twilio${body.code ? ` error ${body.code}` : ''}: ${body.message ?? 'no message'}` };
  } catch (err) {
    return { ok: false, detail: `cannot reach ${url}: ${(err as Error).message}` };
  }
}
