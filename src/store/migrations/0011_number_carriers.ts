import type { Kysely } from 'kysely';

// A live number is bound by the operator to the carrier links that serve it, by their names
// in the carriers file: the SIP trunk for voice, the messaging link (SMPP bind, WhatsApp
// number, HTTP provider) for messages. Null: the only link of that kind, if there is one.
// The inventory carries the binding until the number is provisioned from it.
export async function up(db: Kysely<any>): Promise<void> {
  for (const table of ['numbers', 'number_inventory']) {
    await db.schema.alterTable(table).addColumn('voice_trunk', 'text').execute();
    await db.schema.alterTable(table).addColumn('messaging_carrier', 'text').execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['numbers', 'number_inventory']) {
    await db.schema.alterTable(table).dropColumn('messaging_carrier').execute();
    await db.schema.alterTable(table).dropColumn('voice_trunk').execute();
  }
}
