// New offers inside an answered call (RFC 3264 section 8): the far end puts us on hold
// (sendonly or inactive), takes us off it, or moves its media. The dialog answers them with
// the same session (the version goes up when the answer changes), and the leg's media follows:
// it stops sending while the far end takes nothing.
import type { Dialog } from './dialog.ts';
import type { MediaEngine } from '../rtp/engine.ts';
import type { G711Codec } from '../rtp/g711.ts';
import { answerReoffer } from './sdp.ts';

export function answerOffersOn(dialog: Dialog, engine: MediaEngine, legId: string, codecs: readonly G711Codec[], inUse: G711Codec): void {
  let current = inUse;
  dialog.answerOffer = (offer) => {
    const { sdp, media } = answerReoffer(dialog.state.localSdp, offer, [current, ...codecs.filter((c) => c !== current)]);
    current = media.codec;
    void engine.setRemote(legId, media).catch(() => undefined);
    return sdp;
  };
}
