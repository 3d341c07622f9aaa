// The webhooks module: subscriptions, signing secrets (encrypted at rest), the fan-out half
// of the transactional outbox (wired into emit() here), the delivery worker, dead letters
// and replay. Delivery semantics are documented in docs/webhooks.md.
import type { SwitchboardModule } from '../module.ts';
import { EventService } from '../events/service.ts';
import { SecretBox } from '../../platform/secret-box.ts';
import { DefaultSecrets } from './default-secrets.ts';
import { WebhookSender } from './sender.ts';
import { DeliveryWorker } from './worker.ts';
import { DeliveryService } from './deliveries.ts';
import { WebhookService } from './service.ts';
import { createFanOut, DELIVER_JOB } from './fan-out.ts';
import { WebhookDeliverySchema, WebhookEndpointSchema, WebhookTestSchema } from './schema.ts';
import { webhookRoutes } from './routes.ts';
import { ListenHub } from './listen-hub.ts';
import { ListenService } from './listen.ts';
import { listenRoutes } from './listen-routes.ts';
import { ListenSessionSchema } from './listen-schema.ts';

export const webhooksModule: SwitchboardModule = {
  name: 'webhooks',
  register(app, { platform, events, services }) {
    const { config, database, clock, jobs } = platform;
    const box = SecretBox.fromConfig(config);
    const defaults = new DefaultSecrets(database.db, box, clock);
    const sender = new WebhookSender(config);
    const listen = new ListenHub(config.webhookTimeoutMs);
    const worker = new DeliveryWorker({ db: database.db, jobs, clock, box, defaults, sender, listen, config });
    const deliveries = new DeliveryService(database.db, jobs, clock);
    services.webhooks = new WebhookService(database.db, { box, defaults, events, clock, config }, deliveries);

    // Job failures here are database errors (HTTP failures are recorded attempts, not
    // throws): a few quick retries of the job itself are enough.
    jobs.register(DELIVER_JOB, worker.handle, { maxAttempts: 5, backoffSeconds: (n) => n });
    events.setFanOut(createFanOut({ jobs, clock }));

    app.addSchema(WebhookEndpointSchema);
    app.addSchema(WebhookDeliverySchema);
    app.addSchema(WebhookTestSchema);
    app.addSchema(ListenSessionSchema);
    webhookRoutes(app, services.webhooks, new EventService(database.db));
    listenRoutes(app, new ListenService(database.db, { box, defaults, clock }), listen, platform.publicUrl);

    // Open event streams would keep the server from closing: end them first (their waiting
    // attempts fail and are retried after the restart).
    app.addHook('preClose', (done) => {
      listen.close();
      done();
    });

    // Let in-flight deliveries finish (the queue stops after the HTTP server closes), then
    // close the pooled connections.
    app.addHook('onClose', async () => {
      await jobs.stop();
      await sender.close();
    });
  },
};
