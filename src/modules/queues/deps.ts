// What the queue's call handling needs from the rest of Switchboard, gathered once.
import type { Platform } from '../../platform/context.ts';
import type { VoiceCarriers, MediaPort } from '../../carriers/index.ts';
import type { CallService } from '../calls/service.ts';
import type { CallRow } from '../calls/tables.ts';
import type { FlowRuntime } from '../calls/flows/verbs/verb.ts';
import type { FlowWebhookClient } from '../calls/flows/flow-webhook.ts';
import type { FlowAudio } from '../calls/flows/flow-audio.ts';

export interface QueueDeps {
  platform: Platform;
  calls: CallService;
  carriers: VoiceCarriers;
  /** Signed POSTs to wait_url. */
  webhooks: FlowWebhookClient;
  /** The files a wait flow's plays play (fetched under the URL policy, cached by URL). */
  audio: FlowAudio;
  /** The flow interpreter's runtime (set once the queues connect to it). */
  flow(): FlowRuntime;
}

export function mediaOf(deps: QueueDeps, call: CallRow): MediaPort {
  return deps.carriers.named(call.carrier).media;
}
