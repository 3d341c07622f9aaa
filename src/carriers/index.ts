// The carriers' public entry: the only file of src/carriers/ a module may import. It names
// the interfaces a module programs against (voice, media, messaging); the implementations
// behind them (simulator, SIP/RTP, SMPP, WhatsApp, HTTP SMS, speech) stay private.
export type { CallSignals, CarrierCallStore, InboundDecision, InboundOffer, VoiceCarrier } from './carrier.ts';
export { VoiceCarriers } from './carrier.ts';
export type { ConferenceEvents, ConferenceMedia, MediaEvents, MediaPort, PromptAudio, RecordingSink, RecordingSinks } from './media-port.ts';
export type { MediaStreamPort, StreamEvents } from './media-streams.ts';
export type {
  CarrierMessage, CarrierStatus, InboundMessage, InboundSink, MessageHandoffSink, MessageStatusSink, MessageWaitingSink, MessagingCarrier, QueuedHold, StatusReport,
} from './messaging-carrier.ts';
export type { CallerStep, PortReview, PortSubmission, SandboxNetwork } from './sandbox-network.ts';
export type { CarrierListeners } from './listeners.ts';
export type { RegistrationChange, SoftphoneBinding, SoftphoneCredentials, SoftphoneRegistry } from './softphones.ts';
export { softphoneTarget, softphoneUserOf } from './softphones.ts';
export type { ProviderWebhook } from './live-messaging/router.ts';
export { buildCarriers, type CarrierInputs, type Carriers, type LiveMessaging } from './build.ts';
