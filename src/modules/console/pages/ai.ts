// The AI receptionist: agents, the questions callers asked that it could not answer (from the
// AI analytics: the same groups GET /v1/analytics/ai answers), recent conversations, an
// agent's page with its knowledge documents and its own unanswered questions, and a
// conversation's page with its transcript, the message it took and its score. Questions,
// document titles and transcripts are user-controlled text and go through html``.
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.ts';
import type { AnalyticsService } from '../../analytics/service.ts';
import { windowOf } from '../../analytics/range.ts';
import { presentDocument } from '../../ai/knowledge/service.ts';
import { html, type Html } from '../html.ts';
import { sendHtml, signedInPage } from '../layout.ts';
import { requireScope } from '../access.ts';
import type { ConsoleSession } from '../sessions.ts';
import { PAGE_SIZE, json, pageOf, table, time } from '../views.ts';
import { presentConversation } from '../../ai/conversations/service.ts';

const QUESTIONS_SHOWN = 20;

/** The last 30 UTC days' unanswered questions, most asked first; one agent's, or every agent's. */
async function unansweredQuestions(analytics: AnalyticsService, session: ConsoleSession, agentId: string | undefined): Promise<Html> {
  const window = windowOf({ interval: 'day' }, session.clock.now());
  const a = await analytics.ai(session.account.id, session.mode, window, { agentId, groupBy: undefined, questionsLimit: QUESTIONS_SHOWN });
  const rows = a.unanswered_questions.map((q) => html`<tr data-testid="unanswered-question"><td data-testid="question-text">${q.question}${q.examples.length ? html`<div class="muted">also: ${q.examples.join(' · ')}</div>` : ''}</td>
<td>${q.count}</td><td>${time(q.last_asked_at)}</td><td>${q.conversation_ids.map((id) => html`<a href="/console/ai/conversations/${id}">${id}</a> `)}</td></tr>`);
  const partial = a.questions_scanned.complete ? html`` : html`<p class="muted">Read from the latest ${a.questions_scanned.conversations} conversations only.</p>`;
  return html`${table(['Question', 'Asked', 'Last asked', 'Conversations'], rows, 'Every question callers asked in the last 30 days was answered from the knowledge.')}${partial}`;
}

function conversations(rows: Parameters<typeof presentConversation>[0][]): Html {
  return table(['Conversation', 'From', 'Outcome', 'Score', 'Started'], rows.map(presentConversation).map((c) => html`<tr data-testid="conversation-row"><td><a href="/console/ai/conversations/${c.id}">${c.id}</a></td><td>${c.from}</td><td>${c.outcome ?? c.status}</td><td>${c.score?.overall ?? '–'}</td><td>${time(c.started_at)}</td></tr>`), 'No conversations.');
}

export function aiRoutes(scope: FastifyInstance, services: Services, analytics: AnalyticsService): void {
  scope.get('/ai', async (request, reply) => {
    const session = request.consoleSession;
    requireScope(session, 'ai:read');
    const { account, mode } = session;
    const agents = await services.agents.list(account.id, mode, { limit: PAGE_SIZE });
    const { rows } = pageOf(await services.conversations.list(account.id, mode, { limit: PAGE_SIZE }));
    const body = html`<h2>Agents</h2>${table(['Agent', 'Name', 'Status', 'Language', 'Created'], pageOf(agents.rows).rows.map(agents.present).map((a) => html`<tr data-testid="agent-row"><td><a href="/console/ai/agents/${a.id}">${a.id}</a></td><td>${a.name}</td><td>${a.status}</td><td>${a.language}</td><td>${time(a.created_at)}</td></tr>`), 'No agents.')}
<h2>Unanswered questions</h2><p class="muted">What callers asked in the last 30 days that no agent could answer from its knowledge, grouped by wording: the knowledge to add.</p>${await unansweredQuestions(analytics, session, undefined)}
<h2>Recent conversations</h2>${conversations(rows)}`;
    return sendHtml(reply, signedInPage(session, { title: 'AI receptionist', body, current: '/console/ai' }));
  });

  scope.get('/ai/agents/:id', async (request, reply) => {
    const session = request.consoleSession;
    requireScope(session, 'ai:read');
    const { account, mode } = session;
    const agent = await services.agents.get(account.id, mode, (request.params as { id: string }).id);
    const documents = pageOf(await services.knowledge.list(account.id, mode, agent.id, { limit: PAGE_SIZE })).rows.map(presentDocument);
    const { rows } = pageOf(await services.conversations.list(account.id, mode, { limit: 20, agentId: agent.id }), 20);
    const body = html`<p><span data-testid="agent-name">${agent.name}</span> · ${agent.status} · ${agent.language} · <span class="muted">${agent.id}</span></p>
<h2>Knowledge documents</h2>${table(['Document', 'Title', 'Type', 'Status', 'Chunks', 'Size', 'Added'], documents.map((d) => html`<tr data-testid="knowledge-document"><td>${d.id}</td><td data-testid="document-title">${d.title}${d.source_url ? html`<div class="muted">${d.source_url}</div>` : ''}${d.error ? html`<div class="error">${d.error}</div>` : ''}</td><td>${d.content_type}</td><td>${d.status}</td><td>${d.chunk_count}</td><td>${d.size_bytes} B</td><td>${time(d.created_at)}</td></tr>`), 'No knowledge yet: add documents with POST /v1/ai/agents/{id}/knowledge.')}
<h2>Unanswered questions</h2>${await unansweredQuestions(analytics, session, agent.id)}
<h2>Recent conversations</h2>${conversations(rows)}`;
    return sendHtml(reply, signedInPage(session, { title: `Agent ${agent.name}`, body, current: '/console/ai' }));
  });

  scope.get('/ai/conversations/:id', async (request, reply) => {
    const session = request.consoleSession;
    requireScope(session, 'ai:read');
    const c = await services.conversations.get(session.account.id, session.mode, (request.params as { id: string }).id);
    const body = html`<p>${c.from} → ${c.to} · ${c.outcome ?? c.status} · agent <a href="/console/ai/agents/${c.agent_id}">${c.agent_id}</a> · call <a href="/console/calls/${c.call_id}">${c.call_id}</a></p>
<h2>Transcript</h2><ol class="transcript" data-testid="conversation-transcript">${c.transcript.map((t) => html`<li><span class="muted">${t.at.toFixed(1)} s · ${t.speaker}</span> ${t.text}</li>`)}</ol>
${c.message ? html`<h2>Message taken</h2><pre>${c.message}</pre>` : ''}
<h2>Score</h2>${c.score ? json(c.score) : html`<p class="muted">Not scored yet.</p>`}`;
    return sendHtml(reply, signedInPage(session, { title: `Conversation ${c.id}`, body, current: '/console/ai' }));
  });
}
