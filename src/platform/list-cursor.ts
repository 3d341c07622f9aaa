// `starting_after` must be an item of the list being paged, in the key's mode: a cursor of
// another list, of the other mode or of nothing would otherwise answer page one with
// has_more: true, and a client paging until has_more is false would loop for ever.
// Checked once for every list route (app.ts), before the service runs.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Tables } from '../store/tables.ts';
import { Problem } from './problems.ts';
import { kindOfCollection, kindOfId, keyOf, modeOfId, type IdKind } from './id-directory.ts';

function invalidCursor(message: string): Problem {
  return new Problem('invalid_cursor', `starting_after ${message}`, { errors: [{ field: 'starting_after', message, code: 'invalid_cursor' }] });
}

/** A preHandler for the list at `url`, or null when the list's items have no id kind we know. */
export function cursorCheck(db: Kysely<Tables>, url: string) {
  const kind: IdKind | undefined = kindOfCollection(url);
  if (!kind) return null;
  return async function checkCursor(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const cursor = (request.query as { starting_after?: string } | undefined)?.starting_after;
    if (cursor === undefined) return;
    const claimed = kindOfId(cursor);
    if (claimed !== kind) {
      throw invalidCursor(claimed
        ? `"${cursor}" is ${claimed.noun === 'API key' ? 'an' : 'a'} ${claimed.noun} id; this list pages by ${kind.noun} ids (${kind.prefix}_...): pass the previous page's next_cursor.`
        : `"${cursor}" is not an id of this list; pass the previous page's next_cursor (${kind.prefix}_...).`);
    }
    const { account, mode } = request.auth;
    const found = await modeOfId(db, kind, account.id, cursor);
    if (found === mode) return;
    throw invalidCursor(found
      ? `"${cursor}" belongs to ${found} mode; this request used ${keyOf(mode)}.`
      : `"${cursor}" is not an id of this list in ${mode} mode; pass the previous page's next_cursor.`);
  };
}
