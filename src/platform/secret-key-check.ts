// A server must hold the key its database's secrets were sealed with (secret-box.ts). Without
// this check a node started with another key (a second node without the shared
// SWITCHBOARD_SECRET_KEY: each generates its own key file in its data dir) runs normally
// until it claims a webhook delivery, whose signing secret it cannot open: the job fails on
// every attempt it wins, and a delivery whose attempts all landed there is never sent. So the
// first server to start seals a known value into the database, and every server, at start,
// must open it or refuse to start, saying why. (A key truly lost: delete the row, start with
// the new key, rotate the signing secrets; docs/webhooks.md.)
import type { Kysely } from 'kysely';
import type { Tables } from '../store/tables.ts';
import type { SecretBox } from './secret-box.ts';

const CHECK_ID = 'v1';
const CHECK_VALUE = 'switchboard secret key check';

export class SecretKeyMismatch extends Error {}

const mismatch = () => new SecretKeyMismatch(
  'this server\'s secret key cannot open the check value the first server sealed in the database (table secret_key_check): '
  + 'the database\'s secrets were sealed with another key. Every node on one database needs the same SWITCHBOARD_SECRET_KEY '
  + '(or, on one node, the webhook-secrets.key file of its data dir).',
);

function opens(box: SecretBox, sealed: string): boolean {
  try {
    box.openOnce(sealed);
    return true;
  } catch {
    return false;
  }
}

/** Throws SecretKeyMismatch unless `box` holds the database's key; the first server records its key's check. */
export async function checkSecretKey(db: Kysely<Tables>, box: SecretBox, now: Date): Promise<void> {
  let row = await db.selectFrom('secret_key_check').select('sealed').where('id', '=', CHECK_ID).executeTakeFirst();
  if (!row) {
    // Two servers starting at once: the first insert wins, the other is held to its key below.
    await db.insertInto('secret_key_check').values({ id: CHECK_ID, sealed: box.seal(CHECK_VALUE), created_at: now.toISOString() })
      .onConflict((oc) => oc.column('id').doNothing()).execute();
    row = await db.selectFrom('secret_key_check').select('sealed').where('id', '=', CHECK_ID).executeTakeFirstOrThrow();
  }
  if (!opens(box, row.sealed)) throw mismatch();
}
