// A queue's routing to workers (docs/contact-center.md, "Routing"): the settings on the queue,
// and the durable job that makes offers. The workers module runs the job (it owns workers);
// the queues only ask for a run when a caller starts waiting in a routed queue.
import { Type, type Static } from 'typebox';
import type { Platform } from '../../platform/context.ts';
import type { Mode } from '../../store/platform-tables.ts';
import type { Trx } from '../../store/transaction.ts';

/** Job kind: look for offers to make in one account's mode (payload RouteJob). */
export const ROUTE_JOB = 'workers.route';

export interface RouteJob {
  accountId: string;
  mode: Mode;
}

export const RoutingSchema = Type.Object({
  strategy: Type.Union([Type.Literal('longest_idle'), Type.Literal('round_robin')], {
    default: 'longest_idle', description: 'longest_idle: the worker available the longest; round_robin: the worker offered a caller least recently.',
  }),
  required_skills: Type.Array(Type.String({ minLength: 1, maxLength: 40, pattern: '^[a-z0-9][a-z0-9_.-]*$' }), {
    maxItems: 20, default: [], description: 'A worker must have every one of these skills.',
  }),
  worker_ids: Type.Optional(Type.Array(Type.String({ pattern: '^wrk_[0-9a-z]+$', maxLength: 64, examples: ['wrk_01jd8x0v6kf5b9w3t2q1r0p9n8'] }), { maxItems: 500, description: 'Only these workers (else any with the skills).' })),
  service_level_seconds: Type.Integer({ minimum: 1, maximum: 3600, default: 20, description: 'The answer time the queue\'s service level counts against.' }),
  on_missed: Type.Union([Type.Literal('available'), Type.Literal('offline')], {
    default: 'available', description: 'A worker who lets an offer ring out: stays available (behind the other idle workers) or goes offline.',
  }),
}, { additionalProperties: false, title: 'QueueRouting', description: 'Offer waiting callers to available workers: the longest waiting caller of the highest priority goes to the chosen worker.' });

export type QueueRouting = Static<typeof RoutingSchema>;

export function routingOf(json: string | null): QueueRouting | null {
  return json ? JSON.parse(json) as QueueRouting : null;
}

/** Asks for a routing run of the account's mode once this transaction commits. */
export async function routeSoon(platform: Platform, trx: Trx, accountId: string, mode: Mode): Promise<void> {
  await platform.jobs.enqueue(trx, ROUTE_JOB, { accountId, mode } satisfies RouteJob);
}
