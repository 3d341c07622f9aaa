// Messaging: SMS, MMS and WhatsApp over the mode's carrier (the simulator in sandbox, the
// links of the carriers file in live mode).
import type { SwitchboardModule } from '../module.ts';
import { SimulatedMessagingCarrier } from '../../carriers/simulator/messaging.ts';
import { LiveMessagingCarrier } from '../../carriers/live-messaging/router.ts';
import { messageRoutes } from './routes.ts';
import { carrierHookRoutes } from './carrier-hooks.ts';
import { MessageSchema } from './schema.ts';
import { MESSAGE_DISPATCH_JOB, MessageService } from './service.ts';

export const messagesModule: SwitchboardModule = {
  name: 'messages',
  async register(app, ctx) {
    const { platform } = ctx;
    const simulator = new SimulatedMessagingCarrier(platform.jobs, platform.config.simTimeScale);
    const messages = new MessageService(platform, ctx.events, ctx.services.numbers, simulator);
    ctx.services.messages = messages;
    platform.jobs.register(MESSAGE_DISPATCH_JOB, (payload: { messageId: string }) => messages.dispatch(payload));
    if (LiveMessagingCarrier.wanted(platform.carriers.links)) {
      const live = new LiveMessagingCarrier(platform.carriers.links, {
        db: platform.database.db, jobs: platform.jobs, clock: platform.clock, log: (msg, extra) => platform.log.info(extra ?? {}, msg),
        publicUrl: (path) => platform.publicUrl.to(path),
      });
      messages.useLiveCarrier(live);
      live.start();
      app.addHook('onClose', () => live.stop());
      await carrierHookRoutes(app, live);
    }
    app.addSchema(MessageSchema);
    messageRoutes(app, ctx);
  },
};
