// `switchboard carriers check` for a WhatsApp link: reads the phone number object with the
// token (GET /{version}/{phone_number_id}), which proves the origin, the token and the id.
import type { ProbeResult } from '../config/registry.ts';
import type { WhatsAppConfig } from './config.ts';
import { describeGraphError, type GraphError } from './graph.ts';

export async function probeWhatsApp(c: WhatsAppConfig, timeoutMs: number): Promise<ProbeResult> {
  const url = `${c.graph_base_url.replace(/\/+$/, '')}/${c.api_version}/${c.phone_number_id}`;
  try {
    const res = await fetch(url, { headers: { authorization: `Bearer ${c.access_token}` }, signal: AbortSignal.timeout(timeoutMs) });
    const body = (await res.json().catch(() => ({}))) as { display_phone_number?: string; verified_name?: string; error?: GraphError };
    if (res.ok) return { ok: true, detail: `phone number ${body.display_phone_number ?? '?'} (${body.verified_name ?? 'unnamed'})` };
    return { ok: false, detail: body.error ? `${res.status} from the Graph API ${describeGraphError(body.error)}` : `${res.status} from the Graph API` };
  } catch (err) {
    return { ok: false, detail: `cannot reach ${url}: ${(err as Error).message}` };
  }
}
