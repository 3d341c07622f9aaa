import type { Kysely } from 'kysely';
import { sql } from 'kysely';

// Conferences (issue 25): the resource, its participants, the simulator's timeline of each
// sandbox conference, and the recordings column that ties a conference's recording to it.
// One conference is open per account, mode and name at a time (the partial unique index: a
// second first-join at the same instant finds the first's row instead of making another).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('conferences')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('max_participants', 'integer', (c) => c.notNull())
    .addColumn('record', 'integer', (c) => c.notNull())
    .addColumn('recording_id', 'text')
    .addColumn('end_reason', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text')
    .addColumn('ended_at', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('conferences_account').on('conferences').columns(['account_id', 'mode', 'id']).execute();
  await db.schema.createIndex('conferences_status').on('conferences').columns(['account_id', 'mode', 'status', 'id']).execute();
  await db.schema.createIndex('conferences_name').on('conferences').columns(['account_id', 'mode', 'name', 'id']).execute();
  await sql`CREATE UNIQUE INDEX conferences_open_name ON conferences (account_id, mode, name) WHERE status <> 'completed'`.execute(db);

  await db.schema
    .createTable('conference_participants')
    .addColumn('id', 'text', (c) => c.notNull().references('calls.id'))
    .addColumn('conference_id', 'text', (c) => c.notNull().references('conferences.id'))
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('muted', 'integer', (c) => c.notNull())
    .addColumn('hold', 'integer', (c) => c.notNull())
    .addColumn('coach_call_id', 'text')
    .addColumn('start_on_enter', 'integer', (c) => c.notNull())
    .addColumn('end_on_exit', 'integer', (c) => c.notNull())
    .addColumn('beep', 'integer', (c) => c.notNull())
    .addColumn('joined_at', 'text', (c) => c.notNull())
    .addColumn('left_at', 'text')
    .addColumn('left_reason', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('conference_participants_pk', ['conference_id', 'id'])
    .execute();
  // A call's current conference (the hang-up of a participant, the verb's end).
  await db.schema.createIndex('conference_participants_call').on('conference_participants').columns(['id', 'status']).execute();

  await db.schema
    .createTable('sim_conferences')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema.alterTable('recordings').addColumn('conference_id', 'text').execute();
  await db.schema.createIndex('recordings_conference').on('recordings').columns(['conference_id', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('recordings_conference').execute();
  await db.schema.alterTable('recordings').dropColumn('conference_id').execute();
  await db.schema.dropTable('sim_conferences').execute();
  await db.schema.dropTable('conference_participants').execute();
  await db.schema.dropTable('conferences').execute();
}
