// Workers (docs/contact-center.md, "Workers"): the human agents queues route callers to, their
// status (available, busy, wrap_up, offline), their softphones' SIP credentials and
// registrations, and routing queues' waiting callers to them. Registers after queues and calls (it follows calls' moves).
import type { SwitchboardModule } from '../module.ts';
import { QueueStatsSchema, SipCredentialsSchema, WorkerSchema, WorkerStatsSchema } from './schema.ts';
import { QueueStats } from './queue-stats.ts';
import { WorkerStats } from './worker-stats.ts';
import { WorkerService } from './service.ts';
import { workerRoutes } from './routes.ts';
import { WorkerRouting } from './routing.ts';
import { WorkerCalls } from './offer-calls.ts';
import { SoftphoneBindings } from './softphone-registry.ts';

export const workersModule: SwitchboardModule = {
  name: 'workers',
  register(app, { platform, events, services, wiring }) {
    services.workers = new WorkerService(platform, events);
    // The live SIP registrar checks softphones' digests and keeps their bindings here.
    wiring.softphones.fill(new SoftphoneBindings(platform));
    // Routing from queues: the offers (a job) and what the workers' calls do to them.
    new WorkerRouting(platform, events, services.calls);
    new WorkerCalls(platform, events, services.calls);
    app.addSchema(WorkerSchema);
    app.addSchema(SipCredentialsSchema);
    app.addSchema(QueueStatsSchema);
    app.addSchema(WorkerStatsSchema);
    workerRoutes(app, services.workers, new QueueStats(platform), new WorkerStats(platform));
  },
};
