// Port-in orders with temporary numbers; the losing carrier is simulated in the sandbox
// (src/carriers/simulator/porting.ts) and every timer is a job on the sandbox test clock.
import type { SwitchboardModule } from '../module.ts';
import { portRoutes } from './routes.ts';
import { PortSchema } from './schema.ts';
import { PORT_COMPLETE_JOB, PORT_REVIEW_JOB, PortService } from './service.ts';

export const portsModule: SwitchboardModule = {
  name: 'ports',
  register(app, ctx) {
    const ports = new PortService(ctx.platform, ctx.events, ctx.services.numbers, ctx.carriers.sandbox);
    ctx.services.ports = ports;
    ctx.platform.jobs.register(PORT_REVIEW_JOB, (payload: { portId: string; submittedAt: string }) => ports.review(payload));
    ctx.platform.jobs.register(PORT_COMPLETE_JOB, (payload: { portId: string; focDate: string }) => ports.complete(payload));
    app.addSchema(PortSchema);
    portRoutes(app, ctx);
  },
};
