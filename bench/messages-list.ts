// `npm run bench:messages-list`: GET /v1/messages page latency with 1,000,000 messages in a
// SQLite store. Seeds the messages straight into the table through the store layer (batched
// inserts in one transaction), starts `switchboard serve` on that store and measures p50/p99
// of the first page, deep cursor pages and filtered pages, sequentially (one request at a
// time: this is latency, not throughput). Bounded: fixed counts of rows and requests.
import { performance } from 'node:perf_hooks';
import { openDatabase } from '../src/store/db.ts';
import { migrateToLatest } from '../src/store/migrate.ts';
import { newId } from '../src/platform/ids.ts';
import { inTransaction } from '../src/store/transaction.ts';
import type { MessageRow } from '../src/modules/messages/tables.ts';
import { createAccount, freshDataDir, startSwitchboard } from './lib/spawn.ts';

const TOTAL = Number(process.env.BENCH_MESSAGES ?? 1_000_000);
const BATCH = 500; // 28 columns x 500 rows stays under SQLite's 32,766 bound parameters
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 300);
const RECIPIENTS = 1000;

const dataDir = freshDataDir('messages-list');
const created = createAccount(dataDir, 'enterprise');
const accountId = created.account.id;
const ourNumber = created.numbers.sandbox[0]!;

// --- seed -------------------------------------------------------------------------------
const database = openDatabase({ dataDir, databaseUrl: undefined });
await migrateToLatest(database);
const numberId = (await database.db.selectFrom('numbers').select('id').where('account_id', '=', accountId).executeTakeFirstOrThrow()).id;
const start = Date.parse('2026-01-01T00:00:00Z');
const spanMs = 30 * 86_400_000;

function row(i: number): MessageRow {
  const inbound = i % 10 === 0;
  const status = inbound ? 'received' : i % 100 === 1 ? 'failed' : i % 50 === 3 ? 'undelivered' : 'delivered';
  const at = new Date(start + Math.floor((i / TOTAL) * spanMs)).toISOString();
  const user = `+1415555${String(1000 + (i % RECIPIENTS)).padStart(4, '0')}`;
  return {
    id: newId('message'), account_id: accountId, mode: 'sandbox', direction: inbound ? 'inbound' : 'outbound',
    channel: i % 20 === 7 ? 'whatsapp' : 'sms', from_number: inbound ? user : ourNumber, to_number: inbound ? ourNumber : user,
    number_id: numberId, body: `Message number ${i}`, media_urls: '[]', template: null, encoding: 'gsm7', segments: 1,
    status, error_code: status === 'failed' ? 'carrier_rejected' : null, error_message: null, webhook_url: null, metadata: '{}',
    created_at: at, updated_at: at, sent_at: inbound ? null : at, delivered_at: status === 'delivered' ? at : null,
    read_at: null, failed_at: status === 'failed' || status === 'undelivered' ? at : null, received_at: inbound ? at : null,
  };
}

const seedStart = performance.now();
await inTransaction(database.db, async (trx) => {
  for (let i = 0; i < TOTAL; i += BATCH) {
    const rows: MessageRow[] = [];
    for (let j = i; j < Math.min(TOTAL, i + BATCH); j++) rows.push(row(j));
    await trx.insertInto('messages').values(rows).execute();
  }
});
const seedSeconds = (performance.now() - seedStart) / 1000;
// Cursors at fixed depths (read once here; the API never uses OFFSET).
const depths = [1_000, 100_000, 500_000, TOTAL - 100].filter((d) => d < TOTAL);
const cursors: Array<[number, string]> = [];
for (const depth of depths) {
  const r = await database.db.selectFrom('messages').select('id').where('account_id', '=', accountId).orderBy('id', 'desc').limit(1).offset(depth).executeTakeFirstOrThrow();
  cursors.push([depth, r.id]);
}
await database.close();
console.log(`Seeded ${TOTAL.toLocaleString('en-US')} messages into SQLite in ${seedSeconds.toFixed(1)} s (${Math.round(TOTAL / seedSeconds).toLocaleString('en-US')} rows/s).`);

// --- measure ----------------------------------------------------------------------------
const server = await startSwitchboard(dataDir, { SWITCHBOARD_LOG_LEVEL: 'warn' });
const auth = { authorization: `Bearer ${created.keys.sandbox}` };

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function measure(name: string, paths: string[]): Promise<void> {
  for (let i = 0; i < 10; i++) await fetch(server.url + paths[i % paths.length], { headers: auth }).then((r) => r.arrayBuffer()); // warm-up
  const times: number[] = [];
  let rows = 0;
  for (let i = 0; i < REQUESTS; i++) {
    const t0 = performance.now();
    const res = await fetch(server.url + paths[i % paths.length], { headers: auth });
    const body = (await res.json()) as { data: unknown[] };
    times.push(performance.now() - t0);
    if (res.status !== 200) throw new Error(`${name}: ${res.status} ${JSON.stringify(body)}`);
    rows = body.data.length;
  }
  times.sort((a, b) => a - b);
  console.log(`${name.padEnd(44)} p50 ${percentile(times, 50).toFixed(2).padStart(7)} ms   p99 ${percentile(times, 99).toFixed(2).padStart(7)} ms   (${rows} rows/page, ${REQUESTS} requests)`);
}

try {
  console.log(`\nGET /v1/messages, limit 20, sequential requests over HTTP on 127.0.0.1:`);
  await measure('first page', ['/v1/messages?limit=20']);
  for (const [depth, cursor] of cursors) await measure(`cursor page at depth ${depth.toLocaleString('en-US')}`, [`/v1/messages?limit=20&starting_after=${cursor}`]);
  await measure('filtered: to=<one of 1,000 recipients>', Array.from({ length: 20 }, (_, i) => `/v1/messages?limit=20&to=%2B1415555${1000 + i * 37}`));
  await measure('filtered: status=failed (1%)', ['/v1/messages?limit=20&status=failed']);
  await measure('filtered: status=failed, deep cursor', [`/v1/messages?limit=20&status=failed&starting_after=${cursors[cursors.length - 2]![1]}`]);
  await measure('filtered: channel=whatsapp&direction=outbound', ['/v1/messages?limit=20&channel=whatsapp&direction=outbound']);
  await measure('filtered: created range (one day, mid-month)', ['/v1/messages?limit=20&created_gte=2026-01-15T00:00:00Z&created_lte=2026-01-15T23:59:59Z']);
  const firstOfDay = await fetch(`${server.url}/v1/messages?limit=100&created_gte=2026-01-15T00:00:00Z&created_lte=2026-01-15T23:59:59Z`, { headers: auth }).then((r) => r.json()) as { next_cursor: string };
  await measure('filtered: created range, next page', [`/v1/messages?limit=20&created_gte=2026-01-15T00:00:00Z&created_lte=2026-01-15T23:59:59Z&starting_after=${firstOfDay.next_cursor}`]);
  await measure('limit 100', ['/v1/messages?limit=100']);
} finally {
  await server.stop();
}
