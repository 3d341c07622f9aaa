// Prints the OpenAPI 3.1 document (npm run openapi > openapi.json), the input for SDK
// generators. It builds the app over a throwaway SQLite store; nothing listens.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/store/db.ts';
import { migrateToLatest } from '../src/store/migrate.ts';
import { buildOpenApiDocument } from '../src/platform/openapi.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-openapi-'));
const config = loadConfig({ ...process.env, DATABASE_URL: '' }, { dataDir });
const database = openDatabase({ databaseUrl: undefined, dataDir });
try {
  await migrateToLatest(database);
  const { app } = await buildApp({ config, database, logger: false });
  process.stdout.write(JSON.stringify(buildOpenApiDocument(app), null, 2) + '\n');
  await app.close();
} finally {
  await database.close();
  rmSync(dataDir, { recursive: true, force: true });
}
