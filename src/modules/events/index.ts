// The events module: the read side of the event log (GET /v1/events, GET /v1/events/{id}).
// Events are written by emit() (src/events/emit.ts) inside each state change's transaction;
// their deliveries (GET /v1/events/{id}/deliveries) belong to the webhooks module.
import type { SwitchboardModule } from '../module.ts';
import { EventSchema } from './schema.ts';
import { EventService } from './service.ts';
import { eventRoutes } from './routes.ts';

export const eventsModule: SwitchboardModule = {
  name: 'events',
  register(app, { platform }) {
    app.addSchema(EventSchema);
    eventRoutes(app, new EventService(platform.database.db));
  },
};
