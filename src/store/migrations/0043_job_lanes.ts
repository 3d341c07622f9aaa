import type { Kysely } from 'kysely';

// Job lanes (src/jobs/queue.ts): webhook deliveries are claimed by their own loop into their
// own slots, so they never wait behind carrier jobs. Each lane's claim walks only its own
// due rows in this index: with jobs(state, run_at, id) alone, one lane would step over the
// other's whole backlog (twenty thousand fanned-out deliveries, say) on every claim.
// Jobs already queued keep lane null and run in the default lane, which runs any kind.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('jobs').addColumn('lane', 'text').execute();
  await db.schema.createIndex('jobs_lane_due').on('jobs').columns(['lane', 'state', 'run_at', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('jobs_lane_due').execute();
  await db.schema.alterTable('jobs').dropColumn('lane').execute();
}
