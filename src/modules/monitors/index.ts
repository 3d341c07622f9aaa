// Monitors (docs/contact-center.md, "Supervisors"): a supervisor seated beside a call's
// conversation in listen, whisper or barge mode. Registered after queues and conferences: it
// reads the queues' bridges, seats supervisors for the flow interpreter (the monitor verb),
// and follows calls' ends.
import type { SwitchboardModule } from '../module.ts';
import { MonitorSchema } from './schema.ts';
import { MonitorSeating } from './seating.ts';
import { MonitorService } from './service.ts';
import { monitorRoutes } from './routes.ts';

export const monitorsModule: SwitchboardModule = {
  name: 'monitors',
  register(app, { platform, events, services, wiring }) {
    const seating = new MonitorSeating(platform, events, services.voiceCarriers, services.calls);
    const monitors = new MonitorService(platform, services.calls, seating);
    wiring.flow.monitors.fill(seating);
    // A conversation can end with both calls still up (the dequeue's time_limit): its monitors end with it.
    services.queues.onBridgeEnded((trx, callerCallId, agentCallId, clock) => seating.bridgeEnded(trx, callerCallId, agentCallId, clock));
    app.addSchema(MonitorSchema);
    monitorRoutes(app, monitors);
  },
};
