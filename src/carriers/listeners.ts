// Who hears a carrier: the calls service (a call's signals), the flow interpreter (media
// operations' ends and input heard), the recordings service (sinks for captured audio), the
// streams service (media streams' reports), the flows' audio cache (an announcement's file)
// and the workers module (the registrar's store of
// softphones' credentials and bindings). They are built after the carriers they listen to,
// so the composition root hands the carriers these getters, backed by ports it fills once the listeners exist (src/platform/late-port.ts): a carrier asks at the moment
// it reports, and a listener missing there is a named error, never a silent drop.
import type { CallSignals } from './carrier.ts';
import type { ConferenceEvents, MediaEvents, PromptAudio, RecordingSinks } from './media-port.ts';
import type { StreamEvents } from './media-streams.ts';
import type { SoftphoneRegistry } from './softphones.ts';

export interface CarrierListeners {
  signals(): CallSignals;
  media(): MediaEvents;
  sinks(): RecordingSinks;
  streams(): StreamEvents;
  /** The conferences module: a dead node's conferences end. */
  conferences(): ConferenceEvents;
  /** Audio files fetched under the URL policy into this node's cache (a conference's home node fetches an announcement made through another). */
  audio(): PromptAudio;
  /** The workers' softphones: their digest secrets and registered bindings (the live SIP registrar's store). */
  softphones(): SoftphoneRegistry;
}
