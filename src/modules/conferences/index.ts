// Conferences: calls join one by name with the conference verb; the API lists them, ends them,
// announces to them and manages their participants. Registered after calls and recordings: it
// seats calls for the flow interpreter, follows calls' hang-ups, and records conferences
// through the recordings module.
import type { SwitchboardModule } from '../module.ts';
import { isFinal } from '../calls/states.ts';
import { ConferenceSchema, ParticipantSchema } from './schema.ts';
import { ConferenceSeating } from './seating.ts';
import { ConferenceService } from './service.ts';
import { conferenceRoutes } from './routes.ts';
import { ConferenceWaitUrls } from './wait-url.ts';
import { ConferenceHomeLoss } from './home-loss.ts';
import { SecretBox } from '../../platform/secret-box.ts';
import { DefaultSecrets } from '../webhooks/default-secrets.ts';
import { FlowWebhookClient } from '../calls/flows/flow-webhook.ts';

export const conferencesModule: SwitchboardModule = {
  name: 'conferences',
  register(app, { platform, events, services, wiring }) {
    const seating = new ConferenceSeating(platform, events, services.voiceCarriers, services.recordings);
    const conferences = new ConferenceService(platform, services.calls, services.voiceCarriers, seating, services.flowAudio);
    services.conferences = conferences;
    // wait_url requests are signed with the account's default secret, like every flow webhook.
    const box = SecretBox.fromConfig(platform.config);
    const webhooks = new FlowWebhookClient(platform.config, { defaults: new DefaultSecrets(platform.database.db, box, platform.clock), box }, platform.clock);
    app.addHook('onClose', () => webhooks.close());
    const { runtime } = services.flowInterpreter;
    // A dead media node's conferences end (the node-loss rule, src/carriers/sip/cluster.ts).
    wiring.conferenceEvents.fill(new ConferenceHomeLoss(platform, seating));
    const waitUrls = new ConferenceWaitUrls(platform, services.calls, seating, webhooks, () => runtime);
    wiring.flow.conferences.fill({
      join: (trx, call, seat, clock) => seating.join(trx, call, seat, clock),
      seatedIn: (trx, callId) => seating.seatedIn(trx, callId),
      leave: (trx, call, reason, clock) => seating.leave(trx, call, reason, clock),
      homeOf: (trx, conferenceId) => seating.homeOf(trx, conferenceId),
      askWaitUrl: (step, url, opId) => waitUrls.start(step, url, opId),
    });
    // A participant that hangs up leaves its conference (which may end it).
    services.calls.onTransition(async (trx, call, from, clock) => {
      if (from === 'in_progress' && isFinal(call.status)) await seating.leave(trx, call, 'hangup', clock);
    });
    app.addSchema(ConferenceSchema);
    app.addSchema(ParticipantSchema);
    conferenceRoutes(app, conferences);
  },
};
