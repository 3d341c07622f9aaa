// The console module: server-rendered pages at /console for people, signed in with an API key.
// Pages read and act through the same services as the API (no HTTP calls to itself, no second
// copy of their rules); this module owns only its sessions, its pages and its static assets.
// Its routes are HTML, not part of the /v1 API: hidden from the OpenAPI document.
import type { FastifyInstance } from 'fastify';
import type { SwitchboardModule } from '../module.ts';
import { markPublic } from '../../platform/route-access.ts';
import { AnalyticsService } from '../analytics/service.ts';
import { ConsoleSessions } from './sessions.ts';
import { loadAssets } from './assets.ts';
import { registerFormParser } from './form-body.ts';
import { registerResponses } from './responses.ts';
import { sessionGuard } from './guard.ts';
import { signInRoutes, signOutRoute } from './pages/sign-in.ts';
import { overviewRoutes } from './pages/overview.ts';
import { callRoutes } from './pages/calls.ts';
import { messageRoutes } from './pages/messages.ts';
import { webhookRoutes } from './pages/webhooks.ts';
import { keyRoutes } from './pages/keys.ts';
import { debuggerRoutes } from './pages/debugger.ts';
import { ProblemLog } from './problems.ts';
import { numberRoutes } from './pages/numbers.ts';
import { aiRoutes } from './pages/ai.ts';
import { analyticsRoutes } from './pages/analytics.ts';
import { queueRoutes } from './pages/queues.ts';
import { EventService } from '../events/service.ts';

const SWEEP_MS = 60 * 60_000;

export const consoleModule: SwitchboardModule = {
  name: 'console',
  async register(app, { platform, services }) {
    const { database, clock } = platform;
    const sessions = new ConsoleSessions(database.db, clock);
    const analytics = new AnalyticsService(database);
    const events = new EventService(database.db);
    const problems = new ProblemLog(database.db, clock);
    problems.register(app);
    const assets = loadAssets();

    const sweeper = setInterval(() => { Promise.all([sessions.sweep(), problems.prune()]).catch((err) => app.log.warn({ err }, 'console sweep failed')); }, SWEEP_MS);
    sweeper.unref();
    app.addHook('onClose', async () => clearInterval(sweeper));

    await app.register(async (scope: FastifyInstance) => {
      // Authentication here is the console's session, not the API's bearer key.
      markPublic(scope);
      scope.decorateRequest('consoleSession', null as any);
      scope.addHook('onRoute', (route) => { route.schema = { ...route.schema, hide: true }; });
      registerFormParser(scope);
      registerResponses(scope);

      scope.get('/assets/:name', async (request, reply) => {
        const asset = assets.get((request.params as { name: string }).name);
        if (!asset) return reply.code(404).type('text/plain').send('no such asset');
        return reply.type(asset.type).header('cache-control', 'public, max-age=3600').send(asset.body);
      });
      signInRoutes(scope, sessions, platform);

      await scope.register(async (signedIn: FastifyInstance) => {
        signedIn.addHook('preHandler', sessionGuard(sessions));
        signOutRoute(signedIn, sessions);
        overviewRoutes(signedIn, analytics);
        callRoutes(signedIn, services, events);
        messageRoutes(signedIn, services, events);
        webhookRoutes(signedIn, services, events);
        keyRoutes(signedIn, services, sessions, platform);
        debuggerRoutes(signedIn, services, events, problems);
        numberRoutes(signedIn, services);
        aiRoutes(signedIn, services, analytics);
        queueRoutes(signedIn, services, platform);
        analyticsRoutes(signedIn, analytics);
      });
    }, { prefix: '/console' });
  },
};
