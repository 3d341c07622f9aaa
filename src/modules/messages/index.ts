// Messaging: SMS, MMS and WhatsApp over the mode's carrier (the simulator in sandbox, the
// links of the carriers file in live mode).
import type { SwitchboardModule } from '../module.ts';
import { messageRoutes } from './routes.ts';
import { carrierHookRoutes } from './carrier-hooks.ts';
import { MessageSchema } from './schema.ts';
import { MESSAGE_DISPATCH_JOB, MessageService } from './service.ts';

export const messagesModule: SwitchboardModule = {
  name: 'messages',
  async register(app, ctx) {
    const { platform, carriers } = ctx;
    const { sandbox, live } = carriers.messaging;
    const messages = new MessageService(platform, ctx.events, ctx.services.numbers, sandbox, live);
    ctx.services.messages = messages;
    platform.jobs.register(MESSAGE_DISPATCH_JOB, (payload: { messageId: string }) => messages.dispatch(payload));
    if (live) await carrierHookRoutes(app, live);
    app.addSchema(MessageSchema);
    messageRoutes(app, ctx);
  },
};
