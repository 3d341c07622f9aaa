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

export const conferencesModule: SwitchboardModule = {
  name: 'conferences',
  register(app, { platform, events, services, wiring }) {
    const seating = new ConferenceSeating(platform, events, services.voiceCarriers, services.recordings);
    const conferences = new ConferenceService(platform, services.calls, services.voiceCarriers, seating, services.flowAudio);
    services.conferences = conferences;
    wiring.flow.conferences.fill(seating);
    // A participant that hangs up leaves its conference (which may end it).
    services.calls.onTransition(async (trx, call, from, clock) => {
      if (from === 'in_progress' && isFinal(call.status)) await seating.leave(trx, call, 'hangup', clock);
    });
    app.addSchema(ConferenceSchema);
    app.addSchema(ParticipantSchema);
    conferenceRoutes(app, conferences);
  },
};
