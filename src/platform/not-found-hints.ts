// A 404 that says what went wrong. A service answers "no call with this id"; before that
// leaves, this looks at the id: a phone number where an id belongs, an id of another kind
// (`msg_...` sent to the calls endpoint), or an id that exists in the other mode.
import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Tables } from '../store/tables.ts';
import { Problem } from './problems.ts';
import { kindOfId, kindOfNoun, keyOf, looksLikePhoneNumber, modeOfId, type IdKind } from './id-directory.ts';
import { ID_PREFIXES } from './ids.ts';

const article = (noun: string) => (/^[aeiou]/i.test(noun) && !noun.startsWith('u') ? 'an' : 'a');

/** Where to go instead, for the mix-ups people make most. */
function nextStep(expected: IdKind, id: string, claimed: IdKind | undefined): string {
  if (expected.prefix === ID_PREFIXES.recording && claimed?.prefix === ID_PREFIXES.call) {
    return ` To record a call, use POST /v1/calls/${id}/recordings; a call's recordings are listed by GET /v1/calls/${id}/recordings.`;
  }
  if (expected.prefix === ID_PREFIXES.number && claimed === undefined && looksLikePhoneNumber(id)) {
    const digits = id.replace(/[^0-9]/g, '');
    return ` Find the number's id with GET /v1/numbers?phone_number=%2B${digits}.`;
  }
  return '';
}

export async function explainWrongId(db: Kysely<Tables>, expected: IdKind, id: string, accountId: string, mode: 'sandbox' | 'live'): Promise<string | null> {
  const takes = `this endpoint takes ${expected.noun} ids (${expected.prefix}_...)`;
  const claimed = kindOfId(id);
  if (!claimed && looksLikePhoneNumber(id)) return `"${id}" is a phone number; ${takes}.${nextStep(expected, id, claimed)}`;
  if (claimed && claimed !== expected) return `"${id}" is ${article(claimed.noun)} ${claimed.noun} id; ${takes}.${nextStep(expected, id, claimed)}`;
  if (!claimed) return null;
  const other = await modeOfId(db, expected, accountId, id);
  if (other && other !== mode) {
    return `The ${expected.noun} "${id}" exists in ${other} mode; this request used ${keyOf(mode)}. Use ${keyOf(other)} to reach it.`;
  }
  return null;
}

/** For the error handler: a not_found problem with a better detail, when there is one to give. */
export function notFoundExplainer(db: Kysely<Tables>) {
  return async (problem: Problem, request: FastifyRequest): Promise<Problem> => {
    const subject = problem.subject;
    const expected = subject && kindOfNoun(subject.noun);
    if (problem.code !== 'not_found' || !subject || !expected || !request.auth) return problem;
    const detail = await explainWrongId(db, expected, subject.id, request.auth.account.id, request.auth.mode);
    return detail ? new Problem('not_found', detail, { subject }) : problem;
  };
}
