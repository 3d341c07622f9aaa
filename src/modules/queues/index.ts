// Call queues (docs/contact-center.md, "Queues"): the Queue resource, and the enqueue and
// dequeue verbs' side of calls. Registers after calls: it fills the flow interpreter's ports
// (the verbs hand calls to it, the wait audio's ends come back to it).
import type { SwitchboardModule } from '../module.ts';
import { SecretBox } from '../../platform/secret-box.ts';
import { DefaultSecrets } from '../webhooks/default-secrets.ts';
import { FlowWebhookClient } from '../calls/flows/flow-webhook.ts';
import { QueueCalls } from './queue-calls.ts';
import { queueRoutes } from './routes.ts';
import { QueueMemberSchema, QueueSchema } from './schema.ts';
import { QueueService } from './service.ts';
import { WAIT_OP_PREFIX } from './wait-audio.ts';

export const queuesModule: SwitchboardModule = {
  name: 'queues',
  register(app, { platform, services, carriers, wiring }) {
    // wait_url requests are signed with the account's default secret, like every flow webhook.
    const box = SecretBox.fromConfig(platform.config);
    const webhooks = new FlowWebhookClient(platform.config, { defaults: new DefaultSecrets(platform.database.db, box, platform.clock), box }, platform.clock);
    app.addHook('onClose', () => webhooks.close());
    const { runtime } = services.flowInterpreter;
    const queueCalls = new QueueCalls({ platform, calls: services.calls, carriers: carriers.voice, webhooks, audio: services.flowAudio, flow: () => runtime });
    // The enqueue and dequeue verbs hand calls to the queues; the wait audio's operations end here.
    wiring.flow.queues.fill(queueCalls);
    wiring.ownedMedia.queueWait.fill({ prefix: WAIT_OP_PREFIX, events: queueCalls });
    services.queues = new QueueService(platform, services.calls, carriers.voice, services.flowInterpreter, queueCalls);
    app.addSchema(QueueSchema);
    app.addSchema(QueueMemberSchema);
    queueRoutes(app, services.queues);
  },
};
