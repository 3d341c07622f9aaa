import { sql, type Kysely } from 'kysely';

// Numbers (live inventory, temporary-number link), port orders and messages.
// Dialect-neutral DDL: text timestamps, integer booleans, text JSON.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('numbers').addColumn('temporary_for', 'text').execute();
  await db.schema.createIndex('numbers_port').on('numbers').columns(['port_id']).execute();
  // A phone number is held (active or porting) by at most one account per mode.
  await db.schema.createIndex('numbers_phone_in_use').on('numbers').columns(['mode', 'phone_number']).unique()
    .where(sql.ref('status'), '<>', 'released').execute();

  await db.schema
    .createTable('number_inventory')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('phone_number', 'text', (c) => c.notNull())
    .addColumn('country', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('capabilities', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('number_inventory_phone', ['mode', 'phone_number'])
    .execute();
  await db.schema.createIndex('number_inventory_account').on('number_inventory').columns(['account_id', 'mode', 'phone_number']).execute();

  await db.schema
    .createTable('ports')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('phone_numbers', 'text', (c) => c.notNull())
    .addColumn('losing_carrier', 'text', (c) => c.notNull())
    .addColumn('account_number', 'text', (c) => c.notNull())
    .addColumn('pin', 'text', (c) => c.notNull())
    .addColumn('authorized_name', 'text', (c) => c.notNull())
    .addColumn('service_address', 'text', (c) => c.notNull())
    .addColumn('webhook_url', 'text')
    .addColumn('foc_date', 'text')
    .addColumn('exception_code', 'text')
    .addColumn('exception_detail', 'text')
    .addColumn('rejection_reason', 'text')
    .addColumn('submitted_at', 'text', (c) => c.notNull())
    .addColumn('foc_scheduled_at', 'text')
    .addColumn('completed_at', 'text')
    .addColumn('canceled_at', 'text')
    .addColumn('rejected_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ports_account').on('ports').columns(['account_id', 'mode', 'id']).execute();
  await db.schema.createIndex('ports_account_status').on('ports').columns(['account_id', 'mode', 'status', 'id']).execute();

  await db.schema
    .createTable('messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('direction', 'text', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('from_number', 'text', (c) => c.notNull())
    .addColumn('to_number', 'text', (c) => c.notNull())
    .addColumn('number_id', 'text', (c) => c.notNull())
    .addColumn('body', 'text')
    .addColumn('media_urls', 'text', (c) => c.notNull())
    .addColumn('template', 'text')
    .addColumn('encoding', 'text', (c) => c.notNull())
    .addColumn('segments', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('error_code', 'text')
    .addColumn('error_message', 'text')
    .addColumn('webhook_url', 'text')
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('sent_at', 'text')
    .addColumn('delivered_at', 'text')
    .addColumn('read_at', 'text')
    .addColumn('failed_at', 'text')
    .addColumn('received_at', 'text')
    .execute();
  // One index per list filter, each ending in id so the cursor is a range scan within it.
  // The from/to ones also serve the WhatsApp window lookup (latest inbound from a user).
  const indexes: Array<[string, string[]]> = [
    ['messages_account', ['account_id', 'mode', 'id']],
    ['messages_from', ['account_id', 'mode', 'from_number', 'id']],
    ['messages_to', ['account_id', 'mode', 'to_number', 'id']],
    ['messages_status', ['account_id', 'mode', 'status', 'id']],
    ['messages_channel', ['account_id', 'mode', 'channel', 'id']],
    ['messages_direction', ['account_id', 'mode', 'direction', 'id']],
    // A created range pages by (created_at, id) instead: see MessageService.list.
    ['messages_created', ['account_id', 'mode', 'created_at', 'id']],
  ];
  for (const [name, columns] of indexes) await db.schema.createIndex(name).on('messages').columns(columns).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('messages').execute();
  await db.schema.dropTable('ports').execute();
  await db.schema.dropTable('number_inventory').execute();
  await db.schema.dropIndex('numbers_phone_in_use').execute();
  await db.schema.dropIndex('numbers_port').execute();
  await db.schema.alterTable('numbers').dropColumn('temporary_for').execute();
}
