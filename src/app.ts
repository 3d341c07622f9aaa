// Builds the Fastify app from the platform plugins and the modules. No I/O beyond what
// the caller passed in: main.ts (and the tests) open the database and start listening.
import Fastify from 'fastify';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { metricsEnabled, type Config } from './config.ts';
import type { Database } from './store/db.ts';
import { systemClock, type Clock } from './platform/clock.ts';
import type { Platform } from './platform/context.ts';
import type { App } from './platform/app-type.ts';
import { RouteTable } from './platform/route-table.ts';
import { registerErrorHandling } from './platform/errors.ts';
import { FrameworkErrors } from './platform/framework-errors.ts';
import { registerAuth } from './platform/auth.ts';
import { markPublic, requireAccessRule } from './platform/route-access.ts';
import { registerDocsUi } from './platform/docs-ui.ts';
import { WRITE_METHODS, idempotencyHooks } from './platform/idempotency.ts';
import { acceptsEmptyBody, defaultEmptyBody, refuseUnexpectedBody, strictRequestSchemas, validatorCompiler, E164_FORMAT } from './platform/validation.ts';
import { registerJsonBodyParser } from './platform/json-body.ts';
import { cursorCheck } from './platform/list-cursor.ts';
import { notFoundExplainer } from './platform/not-found-hints.ts';
import { MemoryRateLimiter, type RateLimiter } from './platform/rate-limiter.ts';
import { SharedRateLimiter } from './platform/shared-rate-limiter.ts';
import { ProblemSchema, problemCodesOf } from './platform/schemas.ts';
import { FailureSchema } from './platform/failure.ts';
import { PublicUrl } from './platform/public-url.ts';
import { OPENAPI_INFO, buildOpenApiDocument } from './platform/openapi.ts';
import { postmanCollection } from './platform/request-collections.ts';
import { newId } from './platform/ids.ts';
import { TtlCache } from './platform/ttl-cache.ts';
import { lazyChildLogger } from './platform/lazy-logger.ts';
import { holdTransactionFailpoint } from './platform/failpoints.ts';
import { collectProcessMetrics, dbTransactionSeconds, transactionTimeoutCount, transactionTimeouts } from './platform/metrics.ts';
import { MetricsScrape, registerMetricsRoute } from './platform/metrics-endpoint.ts';
import { HttpMetricsLogController } from './platform/http-metrics.ts';
import { jobGauges } from './jobs/metrics.ts';
import { activeCallsGauge } from './modules/calls/metrics.ts';
import { queueGauges } from './modules/queues/metrics.ts';
import { conferenceGauges } from './modules/conferences/metrics.ts';
import { collapseNullableUnions } from './platform/nullable-schemas.ts';
import { LazySchemas, lazySerializerFactory } from './platform/lazy-schemas.ts';
import { JobQueue } from './jobs/queue.ts';
import { checkReadiness } from './platform/readiness.ts';
import { SandboxClocks } from './jobs/sandbox-clocks.ts';
import { EventEmitter } from './events/emit.ts';
import { AccountSchema } from './modules/accounts/schema.ts';
import { ApiKeySchema } from './modules/keys/schema.ts';
import type { Services } from './modules/services.ts';
import { loadCarriersFile, type CarriersConfig } from './carriers/config/load.ts';
import { compose } from './composition.ts';

export interface BuildOptions {
  config: Config;
  database: Database;
  clock?: Clock;
  limiter?: RateLimiter;
  logger?: boolean | object;
  /** Already loaded by the caller; otherwise read from config.carriersFile. */
  carriers?: CarriersConfig;
}

export interface Built {
  app: App;
  platform: Platform;
  services: Services;
  /** Set when shutting down, so /readyz answers 503 while in-flight requests finish. */
  draining: { value: boolean };
  /** The outbox emitter, for the CLI and service-level tests (e.g. a rolled-back change). */
  events: EventEmitter;
  /** Route schemas compile on first use; `schemas.compileAll()` compiles the rest now. */
  schemas: LazySchemas;
  /** GET /metrics' renderer when metrics are on (main.ts gives it a listener of its own); null when off. */
  metrics: MetricsScrape | null;
}

/** Buckets shared through PostgreSQL when several nodes may serve one account; SQLite is one node. */
function defaultLimiter(config: Config, database: Database, log: App['log']): RateLimiter {
  const store = config.rateLimitStore ?? (database.engine === 'postgres' ? 'database' : 'memory');
  if (store === 'memory') return new MemoryRateLimiter();
  if (database.engine !== 'postgres') throw new Error('SWITCHBOARD_RATE_LIMIT_STORE=database needs PostgreSQL (DATABASE_URL); SQLite is one node and keeps its buckets in memory');
  return new SharedRateLimiter(database.db, log);
}

export async function buildApp(opts: BuildOptions): Promise<Built> {
  const { config, database } = opts;
  const clock = opts.clock ?? systemClock;
  const routes = new RouteTable();
  const draining = { value: false };

  const frameworkErrors = new FrameworkErrors();
  const schemas = new LazySchemas();
  // Metrics cost nothing unless turned on: no request counting, no transaction timing, no
  // process sampling. State-change counters are bumped either way (a few per call).
  const metricsOn = metricsEnabled(config.metrics);
  const app = Fastify({
    // Requests are counted where Fastify reports each one finished (http-metrics.ts says why).
    ...(metricsOn ? { logController: new HttpMetricsLogController() } : {}),
    frameworkErrors: frameworkErrors.onFrameworkError,
    clientErrorHandler: frameworkErrors.onClientError,
    // Node's own Host check answers a bare 400; frameworkErrors.requireHost answers a problem.
    http: { requireHostHeader: false },
    logger: opts.logger ?? {
      level: config.logLevel,
      // Defence in depth: our code logs no headers or secrets, and these paths cover the
      // places one could slip in (test/platform/logs.test.ts checks real trace logs).
      redact: [
        'req.headers.authorization', 'headers.authorization', '*.headers.authorization',
        'req.headers["idempotency-key"]', 'secret', '*.secret', '*.signing_secret',
      ],
    },
    childLoggerFactory: lazyChildLogger,
    trustProxy: config.trustProxy as any,
    bodyLimit: 1024 * 1024,
    // The response serializer picks a union's branch with its own Ajv: it must know our format
    // (else it warns "unknown format e164 ignored" for every such schema it compiles).
    serializerOpts: { ajv: { formats: { e164: E164_FORMAT } } },
    schemaController: { compilersFactory: { buildSerializer: lazySerializerFactory(schemas) as any } },
    genReqId: () => newId('request'),
    requestIdHeader: false,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    routerOptions: { ignoreTrailingSlash: true },
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as App;
  app.setValidatorCompiler(validatorCompiler(schemas));
  registerJsonBodyParser(app);

  const jobs = new JobQueue(database, clock, {
    concurrency: config.workerConcurrency,
    laneConcurrency: { webhooks: config.webhookWorkerConcurrency },
    pollMs: config.workerPollMs,
    leaseMs: config.jobLeaseMs,
    onError: (err, job) => app.log.warn({ err, job: job.id, kind: job.kind }, 'job failed'),
  });
  // Every transaction from here on has a deadline: past it, it is rolled back, its request
  // answers 503 transaction_timeout, and the writer (SQLite) is free for everyone else.
  if (metricsOn) collectProcessMetrics();
  const transactionSeconds = dbTransactionSeconds.child('', () => ({}));
  database.scoping.setDeadline({
    ...(metricsOn ? { onClosed: (seconds: number) => transactionSeconds.observe(seconds) } : {}),
    ms: config.transactionTimeoutMs,
    onTimeout: (report) => {
      transactionTimeouts.inc({ engine: database.engine, scope: report.scope });
      app.log.error({ transaction: report.scope, timeout_ms: report.timeoutMs, waiting_on: report.waitingOn, last_statement: report.lastStatement },
        `database transaction rolled back after ${report.timeoutMs} ms: it was waiting on ${report.waitingOn}`);
    },
  });
  const keyCache = new TtlCache<unknown>(config.keyCacheTtlMs);
  const clearKeyCache = () => keyCache.clear();
  const limiter = opts.limiter ?? defaultLimiter(config, database, app.log);
  const anonymousRateLimit = { perMinute: 60 };
  const platform: Platform = {
    config, database, clock, jobs, keyCache, log: app.log, limiter, anonymousRateLimit,
    publicUrl: new PublicUrl(config.publicUrl ?? `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`, config.publicUrl !== undefined),
    sandboxClocks: new SandboxClocks(database, clock, jobs, clearKeyCache),
  };
  const events = new EventEmitter();

  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  app.addHook('onRequest', frameworkErrors.requireHost);
  // Per-route hooks instead of global ones: a GET does not pay for idempotency or body
  // defaults, which is most of the hot path's hook overhead.
  const idempotency = idempotencyHooks(app, platform);
  const holdTransaction = config.testFailpoints ? holdTransactionFailpoint(database.db) : null;
  app.addHook('onRoute', function (route) {
    routes.add(route.url, route.method);
    const methods = [route.method].flat();
    if (route.schema?.response) route.schema = { ...route.schema, response: collapseNullableUnions(route.schema.response), ...problemCodesOf(route.schema.response as Record<string, unknown>) };
    if (route.schema?.body) route.preValidation = [...[route.preValidation ?? []].flat(), defaultEmptyBody];
    else if (route.url.startsWith('/v1/') && methods.some((m) => WRITE_METHODS.has(m))) route.preValidation = [...[route.preValidation ?? []].flat(), refuseUnexpectedBody];
    if (route.schema?.body && acceptsEmptyBody(route.schema.body)) route.schema = { ...route.schema, 'x-body-optional': true } as typeof route.schema;
    if (route.url.startsWith('/v1/')) route.schema = strictRequestSchemas(route.schema ?? {}, collapseNullableUnions);
    const cursor = (route.schema?.querystring as any)?.properties?.starting_after ? cursorCheck(database.db, route.url) : null;
    if (cursor) route.preHandler = [...[route.preHandler ?? []].flat(), cursor];
    if (route.url.startsWith('/v1/') && methods.some((m) => WRITE_METHODS.has(m))) {
      route.preHandler = [...[route.preHandler ?? []].flat(), idempotency.preHandler, ...(holdTransaction ? [holdTransaction] : [])];
      route.onSend = [...[route.onSend ?? []].flat(), idempotency.onSend];
      route.onResponse = [...[route.onResponse ?? []].flat(), idempotency.onResponse];
    }
    requireAccessRule(this, route);
    if (route.url.startsWith('/v1/')) {
      const scope = route.config?.scope;
      const description = [route.schema?.description, scope && `Required scope: \`${scope}\`.`].filter(Boolean).join('\n\n');
      route.schema = { ...route.schema, description, security: route.config?.public ? [] : [{ bearerAuth: [] }] } as any;
    }
  });

  registerErrorHandling(app, routes, notFoundExplainer(database.db));
  frameworkErrors.anonymousRateHeaders = registerAuth(app, platform, { limiter, anonymousPerMinute: anonymousRateLimit.perMinute });

  app.addSchema(ProblemSchema);
  app.addSchema(FailureSchema);
  app.addSchema(AccountSchema);
  app.addSchema(ApiKeySchema);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: OPENAPI_INFO,
      servers: [{ url: `http://${config.host}:${config.port}` }],
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'sb_test_... or sb_live_...' } } },
      // Every operation needs a key unless it says otherwise (`security: []` on public ones);
      // tools that read only the top level (the /docs reference) then say "required".
      security: [{ bearerAuth: [] }],
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });

  app.get('/v1/openapi.json', {
    config: { public: true },
    schema: { hide: true },
  }, async () => buildOpenApiDocument(app));
  app.get('/v1/collections/postman.json', {
    config: { public: true },
    schema: { hide: true },
  }, async (request) => postmanCollection(buildOpenApiDocument(app), { baseUrl: `${request.protocol}://${request.host}` }));
  app.get('/healthz', { config: { public: true }, schema: { hide: true, security: [] } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { config: { public: true }, schema: { hide: true } }, async (_request, reply) => {
    const readiness = await checkReadiness(database, draining.value);
    return reply.code(readiness.status === 'ready' ? 200 : 503).send({ ...readiness, transaction_timeouts: await transactionTimeoutCount() });
  });
  const metrics = metricsOn ? new MetricsScrape([
    activeCallsGauge(database.db), jobGauges(database.db, clock), queueGauges(database.db, clock), conferenceGauges(database.db),
  ], app.log) : null;
  if (metrics) registerMetricsRoute(app, config.metrics, metrics);
  await app.register(async (docs) => {
    markPublic(docs); // the reference UI's own routes: static pages over the public document
    registerDocsUi(docs, '/v1/openapi.json');
  });

  const { services } = await compose(app, { platform, events, clearKeyCache, carriersFile: opts.carriers ?? loadCarriersFile(config.carriersFile) });
  await app.ready();
  return { app, platform, services, draining, events, schemas, metrics };
}
