// Our message as Cloud API message objects. A template, a text, or one media message per
// URL (the Cloud API carries one media item per message), the body riding as the first
// media's caption (audio takes no caption: then the text goes first, on its own). Each
// object becomes one part in the part ledger, so a message is delivered (or read) when
// every object is.
import type { CarrierMessage } from '../messaging-carrier.ts';

export type MediaKind = 'image' | 'video' | 'audio' | 'document';

const BY_EXTENSION: Record<string, MediaKind> = {
  jpg: 'image', jpeg: 'image', png: 'image', webp: 'image',
  mp4: 'video', '3gp': 'video',
  mp3: 'audio', ogg: 'audio', opus: 'audio', aac: 'audio', amr: 'audio', m4a: 'audio',
};

/** Which media object a URL becomes, by its extension; anything else goes as a document. */
export function mediaKind(url: string): MediaKind {
  const path = new URL(url).pathname.toLowerCase();
  const ext = path.slice(path.lastIndexOf('.') + 1);
  return BY_EXTENSION[ext] ?? 'document';
}

/** The message objects to POST, in order (without messaging_product, added by the client). */
export function graphMessages(m: Pick<CarrierMessage, 'to' | 'body' | 'mediaUrls' | 'template'>): object[] {
  const to = m.to.replace(/^\+/, '');
  if (m.template) {
    const parameters = m.template.variables.map((text) => ({ type: 'text', text }));
    return [{
      to, type: 'template',
      template: { name: m.template.name, language: { code: m.template.language }, ...(parameters.length > 0 ? { components: [{ type: 'body', parameters }] } : {}) },
    }];
  }
  const text = m.body ?? '';
  if (m.mediaUrls.length === 0) return [{ to, type: 'text', text: { body: text, preview_url: false } }];
  const out: object[] = [];
  let caption = text.length > 0 ? text : null;
  if (caption && mediaKind(m.mediaUrls[0]!) === 'audio') {
    out.push({ to, type: 'text', text: { body: caption, preview_url: false } });
    caption = null;
  }
  for (const [i, url] of m.mediaUrls.entries()) {
    const kind = mediaKind(url);
    out.push({ to, type: kind, [kind]: { link: url, ...(i === 0 && caption ? { caption } : {}) } });
  }
  return out;
}
