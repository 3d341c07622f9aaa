// The analytics module: read-only figures over the other modules' tables (calls, messages,
// recordings, AI conversations) for one account in one mode: GET /v1/analytics/calls,
// GET /v1/analytics/messages and GET /v1/usage. It owns no table and writes nothing.
import type { SwitchboardModule } from '../module.ts';
import { AnalyticsService } from './service.ts';
import { analyticsRoutes } from './routes.ts';
import { ANALYTICS_SCHEMAS } from './schema.ts';

export const analyticsModule: SwitchboardModule = {
  name: 'analytics',
  register(app, { platform }) {
    for (const schema of ANALYTICS_SCHEMAS) app.addSchema(schema);
    analyticsRoutes(app, new AnalyticsService(platform.database));
  },
};
