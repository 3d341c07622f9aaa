// Builds every carrier this server runs from the carriers file: the voice carrier of each
// mode (the simulator for sandbox, SIP trunks for live when the file has a `sip` section),
// the messaging carrier of each mode (the simulator, and the file's SMPP, WhatsApp and HTTP
// SMS links), and the sandbox network that sandbox keys drive. Called once, by the
// composition root (src/composition.ts); nothing is started until `start`.
import type { Platform } from '../platform/context.ts';
import type { CarriersConfig } from './config/load.ts';
import { VoiceCarriers, type CarrierCallStore } from './carrier.ts';
import type { CarrierListeners } from './listeners.ts';
import type { MessagingCarrier } from './messaging-carrier.ts';
import type { SandboxNetwork } from './sandbox-network.ts';
import { SimulatedVoiceCarrier } from './simulator/voice.ts';
import { SimulatedMessagingCarrier } from './simulator/messaging.ts';
import { SimulatedNetwork } from './simulator/network.ts';
import { LiveSipCarrier } from './sip/live-carrier.ts';
import { sipSettings, type SipSectionConfig } from './sip/config.ts';
import type { SpeechSectionConfig } from './speech/config.ts';
import { LiveMessagingCarrier, type ProviderWebhook } from './live-messaging/router.ts';

/** A live messaging carrier that providers also call back (Meta's and Twilio's webhooks). */
export interface LiveMessaging extends MessagingCarrier {
  /** The provider webhook of a link; null when the link has none. */
  webhook(linkName: string): ProviderWebhook | null;
}

export interface Carriers {
  voice: VoiceCarriers;
  messaging: {
    sandbox: MessagingCarrier;
    /** null when the carriers file configures no messaging link (live sends answer 422 carrier_not_configured). */
    live: LiveMessaging | null;
  };
  sandbox: SandboxNetwork;
  /** Binds the live links (SIP listeners, SMPP binds, sweepers); call once every listener is wired. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface CarrierInputs {
  platform: Platform;
  /** The validated carriers file (no sections and no links when unset). */
  file: CarriersConfig;
  /** Where carriers keep their per-call state: the calls module's rows, through its store. */
  callStore: CarrierCallStore;
  listeners: CarrierListeners;
}

export function buildCarriers({ platform, file, callStore, listeners }: CarrierInputs): Carriers {
  const simulator = new SimulatedVoiceCarrier(platform, callStore, listeners);
  // Live calls go over the SIP trunks of the carriers file; without a `sip` section they
  // are refused with 422 carrier_not_configured.
  const sip = file.sections.sip as SipSectionConfig | undefined;
  const liveVoice = sip ? new LiveSipCarrier(platform, sipSettings(sip), callStore, file.sections.speech as SpeechSectionConfig | undefined, listeners) : null;
  const liveMessaging = LiveMessagingCarrier.wanted(file.links)
    ? new LiveMessagingCarrier(file.links, {
      db: platform.database.db, jobs: platform.jobs, clock: platform.clock, log: (msg, extra) => platform.log.info(extra ?? {}, msg),
      publicUrl: (path) => platform.publicUrl.to(path),
      crashInBatch: platform.config.testFailpoints ? platform.config.testCrashInBatch : null,
    })
    : null;
  return {
    voice: new VoiceCarriers(simulator, liveVoice),
    messaging: { sandbox: new SimulatedMessagingCarrier(platform.jobs, platform.config.simTimeScale), live: liveMessaging },
    sandbox: new SimulatedNetwork(simulator),
    async start() {
      await liveVoice?.start();
      liveMessaging?.start();
    },
    async stop() {
      await liveMessaging?.stop();
      await liveVoice?.stop();
    },
  };
}
