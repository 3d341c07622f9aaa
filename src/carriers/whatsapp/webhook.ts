// Meta's webhook for the WhatsApp Cloud API, as documented: the GET handshake (hub.mode,
// hub.verify_token, hub.challenge), the X-Hub-Signature-256 header (HMAC-SHA256 of the raw
// body with the app secret), and the `whatsapp_business_account` notification whose changes
// carry inbound `messages` and outbound `statuses`. Pure functions: no HTTP, no database.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The challenge to echo when the handshake names our verify token; null otherwise. */
export function challengeFor(query: Record<string, unknown>, verifyToken: string): string | null {
  const token = query['hub.verify_token'];
  const challenge = query['hub.challenge'];
  if (query['hub.mode'] !== 'subscribe' || typeof token !== 'string' || typeof challenge !== 'string') return null;
  const a = Buffer.from(token);
  const b = Buffer.from(verifyToken);
  return a.length === b.length && timingSafeEqual(a, b) ? challenge : null;
}

/** `sha256=<hex>` over the exact bytes Meta sent. */
export function signatureOk(raw: Buffer, header: string | undefined, appSecret: string): boolean {
  if (!header?.startsWith('sha256=')) return false;
  const given = Buffer.from(header.slice(7), 'hex');
  const expected = createHmac('sha256', appSecret).update(raw).digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export interface WaInbound {
  wamid: string;
  from: string;
  /** Our number, from the notification's metadata. */
  to: string;
  /** When the customer sent it (Meta's timestamp): the 24-hour window runs from here. */
  sentAt: string;
  body: string | null;
  mediaUrls: string[];
}

export interface WaStatus {
  wamid: string;
  status: 'sent' | 'delivered' | 'read' | 'failed';
  /** For `failed`: Meta's code and title, e.g. "131026: Message undeliverable". */
  error: string | null;
}

export interface WaNotification {
  /** The phone_number_id each change was for: a link only takes its own. */
  phoneNumberId: string;
  messages: WaInbound[];
  statuses: WaStatus[];
}

interface Change {
  field?: string;
  value?: {
    metadata?: { display_phone_number?: string; phone_number_id?: string };
    messages?: Array<Record<string, any>>;
    statuses?: Array<{ id?: string; status?: string; errors?: Array<{ code?: number; title?: string; message?: string }> }>;
  };
}

const MEDIA_TYPES = ['image', 'video', 'audio', 'document', 'sticker'];

/**
 * The changes of one notification. `mediaUrl(id)` names where an inbound media object can be
 * fetched (the Graph media endpoint; fetching it needs the access token).
 */
export function parseNotification(body: unknown, mediaUrl: (mediaId: string) => string): WaNotification[] {
  const doc = body as { object?: string; entry?: Array<{ changes?: Change[] }> };
  if (doc?.object !== 'whatsapp_business_account' || !Array.isArray(doc.entry)) return [];
  const out: WaNotification[] = [];
  for (const entry of doc.entry) {
    for (const change of entry.changes ?? []) {
      if (change.field !== 'messages' || !change.value?.metadata?.phone_number_id) continue;
      const v = change.value;
      const ours = `+${(v.metadata!.display_phone_number ?? '').replace(/\D/g, '')}`;
      const messages: WaInbound[] = [];
      for (const m of v.messages ?? []) {
        if (typeof m.id !== 'string' || typeof m.from !== 'string') continue;
        const sentAt = new Date(Number(m.timestamp) * 1000);
        const media = MEDIA_TYPES.includes(m.type) ? m[m.type] as { id?: string; caption?: string } | undefined : undefined;
        const body = m.type === 'text' ? String(m.text?.body ?? '')
          : m.type === 'button' ? String(m.button?.text ?? '')
          : m.type === 'interactive' ? String(m.interactive?.button_reply?.title ?? m.interactive?.list_reply?.title ?? '')
          : media?.caption ?? null;
        messages.push({
          wamid: m.id, from: `+${m.from.replace(/\D/g, '')}`, to: ours,
          sentAt: Number.isFinite(sentAt.getTime()) ? sentAt.toISOString() : new Date().toISOString(),
          body, mediaUrls: media?.id ? [mediaUrl(media.id)] : [],
        });
      }
      const statuses: WaStatus[] = [];
      for (const s of v.statuses ?? []) {
        if (typeof s.id !== 'string' || !['sent', 'delivered', 'read', 'failed'].includes(s.status ?? '')) continue;
        const e = s.errors?.[0];
        statuses.push({ wamid: s.id, status: s.status as WaStatus['status'], error: e ? `${e.code ?? '?'}: ${e.title ?? e.message ?? 'no title'}` : null });
      }
      out.push({ phoneNumberId: v.metadata!.phone_number_id!, messages, statuses });
    }
  }
  return out;
}
