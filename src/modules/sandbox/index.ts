// Sandbox tools: the test clock (GET /v1/sandbox/clock, POST /v1/sandbox/clock/advance)
// and simulated inbound traffic (POST /v1/sandbox/inbound_messages).
import type { SwitchboardModule } from '../module.ts';
import { sandboxRoutes } from './routes.ts';
import { SandboxClockSchema } from './schema.ts';
import { SandboxService } from './service.ts';

export const sandboxModule: SwitchboardModule = {
  name: 'sandbox',
  register(app, ctx) {
    ctx.services.sandbox = new SandboxService(ctx.platform);
    app.addSchema(SandboxClockSchema);
    sandboxRoutes(app, ctx);
  },
};
