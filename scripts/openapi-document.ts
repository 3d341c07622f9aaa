// Builds the OpenAPI 3.1 document the way the server serves it, over a throwaway SQLite
// store with nothing listening. print-openapi prints it; the SDK generator reads it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/store/db.ts';
import { migrateToLatest } from '../src/store/migrate.ts';
import { buildOpenApiDocument } from '../src/platform/openapi.ts';

export async function loadOpenApiDocument(): Promise<Record<string, any>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-openapi-'));
  const config = loadConfig({ ...process.env, DATABASE_URL: '' }, { dataDir });
  const database = openDatabase({ databaseUrl: undefined, dataDir });
  try {
    await migrateToLatest(database);
    const { app } = await buildApp({ config, database, logger: false });
    // A JSON round trip gives plain data, whatever objects the builder used.
    const document = JSON.parse(JSON.stringify(buildOpenApiDocument(app))) as Record<string, any>;
    await app.close();
    return document;
  } finally {
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
