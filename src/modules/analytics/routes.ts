import type { App } from '../../platform/app-type.ts';
import { problemResponses } from '../../platform/schemas.ts';
import { windowOf } from './range.ts';
import type { AnalyticsService } from './service.ts';
import { Type } from 'typebox';
import { AiAnalyticsQuery, CallAnalyticsQuery, MessageAnalyticsQuery, QueueAnalyticsQuery, UsageQuery, WebhookAnalyticsQuery } from './schema.ts';

// Each figure reads one resource, so it needs that resource's read scope (as a list of it
// would): a key that may not list calls may not count them either. Usage spans every
// resource and belongs to the account, like GET /v1/account. Queues are read with calls:read,
// as GET /v1/queues is.
export function analyticsRoutes(app: App, analytics: AnalyticsService): void {
  const tags = ['Analytics'];

  app.get('/v1/analytics/calls', {
    config: { scope: 'calls:read' },
    schema: {
      operationId: 'getCallAnalytics', tags, summary: 'Call volumes, answer-seizure ratio, durations and outcomes per hour or day',
      querystring: CallAnalyticsQuery, response: { 200: Type.Ref('CallAnalytics'), ...problemResponses() },
    },
  }, async (request) => {
    const { account, mode, clock } = request.auth;
    const q = request.query;
    return analytics.calls(account.id, mode, windowOf(q, clock.now()), q.group_by);
  });

  app.get('/v1/analytics/messages', {
    config: { scope: 'messages:read' },
    schema: {
      operationId: 'getMessageAnalytics', tags, summary: 'Messages sent, delivered and failed, delivery rate and time to delivery per hour or day',
      querystring: MessageAnalyticsQuery, response: { 200: Type.Ref('MessageAnalytics'), ...problemResponses() },
    },
  }, async (request) => {
    const { account, mode, clock } = request.auth;
    const q = request.query;
    return analytics.messages(account.id, mode, windowOf(q, clock.now()), q.group_by);
  });

  app.get('/v1/analytics/webhooks', {
    config: { scope: 'webhooks:read' },
    schema: {
      operationId: 'getWebhookAnalytics', tags, summary: 'Webhook deliveries, success rate, dead letters and endpoint latency per hour or day',
      querystring: WebhookAnalyticsQuery, response: { 200: Type.Ref('WebhookAnalytics'), ...problemResponses() },
    },
  }, async (request) => {
    const { account, mode, clock } = request.auth;
    const q = request.query;
    return analytics.webhooks(account.id, mode, windowOf(q, clock.now()), q.group_by);
  });

  app.get('/v1/analytics/ai', {
    config: { scope: 'ai:read' },
    schema: {
      operationId: 'getAiAnalytics', tags, summary: 'AI receptionist conversations, containment, transfers, messages, scores, and the questions it could not answer',
      querystring: AiAnalyticsQuery, response: { 200: Type.Ref('AiAnalytics'), ...problemResponses() },
    },
  }, async (request) => {
    const { account, mode, clock } = request.auth;
    const q = request.query;
    return analytics.ai(account.id, mode, windowOf(q, clock.now()), { agentId: q.agent_id, groupBy: q.group_by, questionsLimit: q.questions_limit ?? 20 });
  });

  app.get('/v1/analytics/queues', {
    config: { scope: 'calls:read' },
    schema: {
      operationId: 'getQueueAnalytics', tags, summary: 'Callers that joined call queues, answered, abandoned and timed out, and their waits p50/p95 and longest',
      querystring: QueueAnalyticsQuery, response: { 200: Type.Ref('QueueAnalytics'), ...problemResponses() },
    },
  }, async (request) => {
    const { account, mode, clock } = request.auth;
    const q = request.query;
    return analytics.queues(account.id, mode, windowOf(q, clock.now()), { queueId: q.queue_id, groupBy: q.group_by });
  });

  app.get('/v1/usage', {
    config: { scope: 'account:read' },
    schema: {
      operationId: 'getUsage', tags, summary: 'Usage per UTC day: call minutes, messages and segments, recordings, AI conversations',
      querystring: UsageQuery, response: { 200: Type.Ref('Usage'), ...problemResponses() },
    },
  }, async (request) => {
    const { account, mode, clock } = request.auth;
    return analytics.usage(account.id, mode, windowOf({ ...request.query, interval: 'day' }, clock.now()));
  });
}
