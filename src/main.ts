// Process entry for `switchboard serve`: open the store, migrate, build the app, listen,
// start the job worker, and shut down gracefully on SIGTERM/SIGINT (finish in-flight
// requests and jobs, then close the database).
import { buildApp, type Built } from './app.ts';
import type { Config } from './config.ts';
import type { RateLimiter } from './platform/rate-limiter.ts';
import { openDatabase, type Database } from './store/db.ts';
import { migrateToLatest } from './store/migrate.ts';
import { guardTransactions } from './store/transaction.ts';
import { loadCarriersFile } from './carriers/config/load.ts';
import { SecretBox } from './platform/secret-box.ts';
import { checkSecretKey } from './platform/secret-key-check.ts';
import { startMetricsListener, type MetricsListener } from './platform/metrics-listener.ts';

export interface Server {
  built: Built;
  database: Database;
  url: string;
  /** The metrics listener's base URL (SWITCHBOARD_METRICS_PORT), when there is one. */
  metricsUrl: string | undefined;
  close(): Promise<void>;
}

export async function startServer(config: Config, opts: { logger?: boolean | object; printFirstRunKeys?: boolean; limiter?: RateLimiter } = {}): Promise<Server> {
  let onPoolError: (err: Error) => void = (err) => {
    process.stderr.write(`switchboard: database: ${err.message}\n`);
  };
  // A bad carriers file stops the server before it touches the database, with the same
  // messages `switchboard carriers check` prints.
  const carriers = loadCarriersFile(config.carriersFile);
  guardTransactions(config.transactionGuard);
  const database = openDatabase({
    databaseUrl: config.databaseUrl, dataDir: config.dataDir, backgroundCheckpoints: true, onPoolError: (err) => onPoolError(err),
  });
  let built: Built;
  try {
    await migrateToLatest(database);
    // A node with another secret key would fail every delivery it claims: refuse to start instead.
    await checkSecretKey(database.db, SecretBox.fromConfig(config), new Date());
    built = await buildApp({
      config, database, carriers, ...(opts.logger !== undefined ? { logger: opts.logger } : {}), ...(opts.limiter ? { limiter: opts.limiter } : {}),
    });
  } catch (err) {
    // A refused start (another secret key, a setting refused while building, a failed migration) must not leave the store open.
    await database.close();
    throw err;
  }
  const { app, platform, services } = built;
  onPoolError = (err) => app.log.warn({ err }, 'database connection problem (a lost idle PostgreSQL connection is replaced; a failed SQLite checkpoint is retried)');

  const firstRun = opts.printFirstRunKeys && (await services.accounts.count()) === 0
    ? await services.accounts.create({ plan: 'trial', name: 'My account' })
    : null;

  const released = await platform.jobs.releaseOrphans();
  if (released > 0) app.log.info({ released }, 'released jobs left running by a previous process');
  const address = await app.listen({ host: config.host, port: config.port });
  platform.publicUrl.listening(address);
  const metricsPort = config.metrics.port;
  let metricsListener: MetricsListener | null = null;
  try {
    if (built.metrics && metricsPort !== undefined) metricsListener = await startMetricsListener({ ...config.metrics, port: metricsPort }, built.metrics, app.log);
  } catch (err) {
    // A metrics port already taken stops the start like an API port would, with the store closed.
    await app.close();
    await database.close();
    throw err;
  }
  if (metricsListener) app.log.info({ address: metricsListener.url }, 'metrics listening');
  if (firstRun) process.stdout.write(firstRunBanner(firstRun, address));
  platform.jobs.start();
  app.log.info({ address, database: database.location }, 'switchboard listening');

  let closing: Promise<void> | null = null;
  return {
    built,
    database,
    url: address,
    metricsUrl: metricsListener?.url,
    close() {
      closing ??= (async () => {
        built.draining.value = true;
        await metricsListener?.close();
        // close() ends the keep-alive connections that are idle when it starts; one still
        // finishing a response then (a recording download's file stream ends just after the
        // client has its last byte) would hold it for the whole keepAliveTimeout, 72 s
        // (fastify/fastify#7044). Ending each as it goes idle keeps shutdown graceful and prompt.
        const sweep = setInterval(() => app.server.closeIdleConnections(), 100);
        try {
          await app.close();
        } finally {
          clearInterval(sweep);
        }
        await platform.jobs.stop();
        await database.close();
      })();
      return closing;
    },
  };
}

function firstRunBanner(created: { account: { id: string; trial_ends_at: string | null }; keys: { sandbox: string; live: string }; numbers: { sandbox: string[] } }, address: string): string {
  return [
    '',
    'Welcome to Switchboard. A trial account was created for this empty store:',
    `  account        ${created.account.id} (trial ends ${created.account.trial_ends_at})`,
    `  sandbox key    ${created.keys.sandbox}`,
    `  live key       ${created.keys.live}`,
    `  sandbox number ${created.numbers.sandbox.join(', ')}`,
    'The keys are shown only this once: store them now. Try:',
    `  curl -H "Authorization: Bearer ${created.keys.sandbox}" ${address}/v1/account`,
    '',
  ].join('\n') + '\n';
}

/** Serve until SIGTERM or SIGINT. */
export async function serveForever(config: Config): Promise<void> {
  const server = await startServer(config, { printFirstRunKeys: true });
  const stop = async (signal: string) => {
    server.built.app.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 30_000);
    force.unref();
    await server.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}
