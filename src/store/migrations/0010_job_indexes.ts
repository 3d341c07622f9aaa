import type { Kysely } from 'kysely';

// jobs(state, run_at, id) serves every claim; jobs(state, run_at) only cost a write per job.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('jobs_due').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('jobs_due').on('jobs').columns(['state', 'run_at']).execute();
}
