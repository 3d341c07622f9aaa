// switchboard_conferences_active and switchboard_conference_participants, read from the store
// when scraped (a conference's participants may sit on several nodes' calls; nothing on the
// join or leave path keeps a count). Each query repeats the predicate of its partial index
// (migration 0033) term for term, so both engines answer from those small indexes alone.
import { sql, type Kysely } from 'kysely';
import type { Tables } from '../../store/tables.ts';
import { conferenceParticipants, conferencesActive } from '../../platform/metrics.ts';
import type { ScrapeCollector } from '../../platform/metrics-endpoint.ts';

export function conferenceGauges(db: Kysely<Tables>): ScrapeCollector {
  return {
    name: 'conferences',
    async collect() {
      const [conferences, participants] = await Promise.all([
        db.selectFrom('conferences').select(['mode', (eb) => eb.fn.countAll<number>().as('n')])
          .where(sql<boolean>`status in ('waiting', 'in_progress')`).groupBy('mode').execute(),
        db.selectFrom('conference_participants').select(['mode', (eb) => eb.fn.countAll<number>().as('n')])
          .where(sql<boolean>`status = 'joined'`).groupBy('mode').execute(),
      ]);
      for (const mode of ['sandbox', 'live'] as const) {
        conferencesActive.set({ mode }, Number(conferences.find((r) => r.mode === mode)?.n ?? 0));
        conferenceParticipants.set({ mode }, Number(participants.find((r) => r.mode === mode)?.n ?? 0));
      }
    },
  };
}
