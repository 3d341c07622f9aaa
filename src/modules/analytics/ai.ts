// GET /v1/analytics/ai: the AI receptionist's conversations by outcome and score per bucket
// (one grouped scan of the (account_id, mode, created_at) index range, like every figure), and
// the questions it could not answer, read from the transcripts of the window's latest
// conversations and grouped by wording (question-groups.ts).
import { sql, type Kysely } from 'kysely';
import type { Mode } from '../../store/platform-tables.ts';
import { unansweredQuestions, type TranscriptTurn } from '../ai/engine/index.ts';
import { BUCKET_KEY_LENGTH, type Window } from './range.ts';
import { Folder, ratio } from './folder.ts';
import { groupQuestions, type AskedQuestion } from './question-groups.ts';

export type AiGroupBy = 'agent';

export interface AiFilter {
  agentId: string | undefined;
  groupBy: AiGroupBy | undefined;
  questionsLimit: number;
}

/**
 * Transcripts read per request for unanswered questions: the latest this many conversations of
 * the window. Each is a JSON document of a few kilobytes; a bound keeps a year-long window of a
 * busy account from reading gigabytes, and the answer says when it applied.
 */
export const MAX_TRANSCRIPTS = 10_000;
const PAGE = 500;

interface AiAcc {
  conversations: number;
  completed: number;
  resolved: number;
  transferred: number;
  message_taken: number;
  abandoned: number;
  scored: number;
  score_sum: number;
}

export async function aiAnalytics(db: Kysely<any>, accountId: string, mode: Mode, window: Window, filter: AiFilter) {
  const scope = () => {
    let q = db.selectFrom('ai_conversations')
      .where('account_id', '=', accountId).where('mode', '=', mode)
      .where('created_at', '>=', window.start).where('created_at', '<', window.end);
    if (filter.agentId !== undefined) q = q.where('agent_id', '=', filter.agentId);
    return q;
  };
  const group = filter.groupBy === 'agent' ? sql<string>`agent_id` : sql<string>`''`;
  const rows = await scope()
    .select([
      sql<string>`substr(created_at, 1, ${sql.lit(BUCKET_KEY_LENGTH[window.interval])})`.as('b'),
      group.as('g'),
      'outcome',
      sql<number>`count(*)`.as('n'),
      sql<number>`count(score_overall)`.as('scored'),
      sql<number>`coalesce(sum(score_overall), 0)`.as('score_sum'),
    ])
    .groupBy([sql`b`, sql`g`, 'outcome'])
    .execute() as Array<{ b: string; g: string; outcome: string | null; n: number; scored: number; score_sum: number }>;

  const folder = new Folder<AiAcc>(window, () => ({ conversations: 0, completed: 0, resolved: 0, transferred: 0, message_taken: 0, abandoned: 0, scored: 0, score_sum: 0 }));
  for (const row of rows) {
    for (const acc of folder.targets(row.b, filter.groupBy ? String(row.g) : null)) {
      const n = Number(row.n);
      acc.conversations += n;
      if (row.outcome !== null) acc.completed += n;
      if (row.outcome === 'resolved' || row.outcome === 'transferred' || row.outcome === 'message_taken' || row.outcome === 'abandoned') acc[row.outcome] += n;
      acc.scored += Number(row.scored);
      acc.score_sum += Number(row.score_sum);
    }
  }

  const { asked, read, complete } = await askedWithoutAnswer(scope);
  return {
    object: 'ai_analytics' as const,
    mode,
    interval: window.interval,
    start: window.start,
    end: window.end,
    group_by: filter.groupBy ?? null,
    agent_id: filter.agentId ?? null,
    ...folder.render(filter.groupBy !== undefined, (acc) => ({
      conversations: acc.conversations,
      completed: acc.completed,
      contained: acc.resolved,
      containment_rate: ratio(acc.resolved, acc.completed),
      transferred: acc.transferred,
      messages_taken: acc.message_taken,
      abandoned: acc.abandoned,
      scored: acc.scored,
      average_score: acc.scored === 0 ? null : Math.round((acc.score_sum / acc.scored) * 100) / 100,
    })),
    unanswered_questions: groupQuestions(asked, filter.questionsLimit),
    questions_scanned: { conversations: read, complete },
  };
}

/** The unanswered caller questions of the window's latest MAX_TRANSCRIPTS conversations, read a page at a time. */
async function askedWithoutAnswer(scope: () => any): Promise<{ asked: AskedQuestion[]; read: number; complete: boolean }> {
  const asked: AskedQuestion[] = [];
  let read = 0;
  let before: { created_at: string; id: string } | null = null;
  for (;;) {
    let page = scope().select(['id', 'created_at', 'transcript']).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(Math.min(PAGE, MAX_TRANSCRIPTS + 1 - read));
    if (before) {
      const { created_at: at, id } = before;
      page = page.where((eb: any) => eb.or([eb('created_at', '<', at), eb.and([eb('created_at', '=', at), eb('id', '<', id)])]));
    }
    const rows = await page.execute() as Array<{ id: string; created_at: string; transcript: string }>;
    for (const row of rows) {
      if (read === MAX_TRANSCRIPTS) return { asked, read, complete: false };
      read++;
      for (const turn of unansweredQuestions(JSON.parse(row.transcript) as TranscriptTurn[])) {
        asked.push({ text: turn.text, conversationId: row.id, at: row.created_at });
      }
    }
    if (rows.length < PAGE) return { asked, read, complete: true };
    before = rows.at(-1)!;
  }
}
