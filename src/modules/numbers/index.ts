// Phone numbers: inventory search, provisioning, updates and release. Porting lives in
// ../ports, sending an SMS from a number (POST /v1/numbers/{id}/sms) in ../messages.
import type { SwitchboardModule } from '../module.ts';
import { numberRoutes } from './routes.ts';
import { AvailableNumberSchema, NumberSchema } from './schema.ts';
import { NumberService } from './service.ts';

export const numbersModule: SwitchboardModule = {
  name: 'numbers',
  register(app, ctx) {
    ctx.services.numbers = new NumberService(ctx.platform.database.db, ctx.events, ctx.platform.config, {
      agentCheck: ctx.wiring.agentCheck.getter,
      inboundMedia: ctx.wiring.inboundMedia.getter,
    });
    app.addSchema(NumberSchema);
    app.addSchema(AvailableNumberSchema);
    numberRoutes(app, ctx);
  },
};
