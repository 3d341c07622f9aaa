// A live-voice bench's server: a real server in this process (SQLite unless
// BENCH_DATABASE_URL), its carriers file, and one enterprise account whose live number is
// bound to a trunk (and any further numbers, each bound to its own trunk: bench:sip spreads
// its calls over several SIPp peers that way), written before the server starts (bench:sip
// and bench:ai-live).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { startServer } from '../../src/main.ts';
import { openDatabase } from '../../src/store/db.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { AccountService } from '../../src/modules/accounts/service.ts';
import { NumberService } from '../../src/modules/numbers/service.ts';
import { EventEmitter } from '../../src/events/emit.ts';
import { freePort } from './spawn.ts';

export async function startLiveBenchServer(options: { dataDir: string; carriersYaml: string[]; phoneNumber: string; trunk: string; moreNumbers?: { phoneNumber: string; trunk: string }[] }) {
  const carriersFile = join(options.dataDir, 'carriers.yaml');
  writeFileSync(carriersFile, [...options.carriersYaml, ''].join('\n'));
  const env = { ...process.env, DATABASE_URL: process.env.BENCH_DATABASE_URL ?? '', SWITCHBOARD_CARRIERS_FILE: carriersFile, SWITCHBOARD_LOG_LEVEL: 'warn' };
  const config = loadConfig(env, { host: '127.0.0.1', port: await freePort(), dataDir: options.dataDir });

  const database = openDatabase({ databaseUrl: config.databaseUrl, dataDir: options.dataDir, poolSize: 2 });
  await migrateToLatest(database);
  const created = await new AccountService(database.db, systemClock).create({ plan: 'enterprise', name: 'bench' });
  const numbers = new NumberService(database.db, new EventEmitter());
  const bind = (phoneNumber: string, trunk: string) => numbers.importNumber(systemClock, {
    accountId: created.account.id, mode: 'live', phoneNumber, capabilities: ['voice'], type: 'local', country: 'US', inventory: false, voiceTrunk: trunk,
  });
  const number = await bind(options.phoneNumber, options.trunk);
  for (const more of options.moreNumbers ?? []) await bind(more.phoneNumber, more.trunk);
  await database.close();

  const server = await startServer(config, { logger: false });
  return { server, created, number };
}
