// The workers' HTTP surface: thin, each route hands its checked request to WorkerService.
import { Type } from 'typebox';
import type { App } from '../../platform/app-type.ts';
import { IdParams, Page, problemResponses } from '../../platform/schemas.ts';
import { toPage } from '../../platform/pagination.ts';
import { CreateWorkerBody, DeletedWorkerSchema, StatsQuery, UpdateWorkerBody, WorkerListQuery, WorkerStatsQuery } from './schema.ts';
import type { WorkerService } from './service.ts';
import type { QueueStats } from './queue-stats.ts';
import type { WorkerStats } from './worker-stats.ts';

export function workerRoutes(app: App, workers: WorkerService, queueStats: QueueStats, workerStats: WorkerStats): void {
  const tags = ['Workers'];

  app.post('/v1/workers', {
    config: { scope: 'calls:write' },
    schema: { operationId: 'createWorker', tags, summary: 'Create a worker (a human agent queues route callers to)', body: CreateWorkerBody,
      response: { 200: Type.Ref('Worker'), ...problemResponses('sip_user_taken', 'reach_not_allowed') } },
  }, async (request) => {
    const { account, mode, clock } = request.auth;
    return workers.create(account.id, mode, clock, request.body);
  });

  app.get('/v1/workers', {
    config: { scope: 'calls:read' },
    schema: { operationId: 'listWorkers', tags, summary: 'List workers, newest first', querystring: WorkerListQuery,
      response: { 200: Page(Type.Ref('Worker'), 'Worker'), ...problemResponses() } },
  }, async (request) => {
    const { account, mode } = request.auth;
    const q = request.query;
    const rows = await workers.list(account.id, mode, { limit: q.limit, startingAfter: q.starting_after, status: q.status, skill: q.skill });
    return toPage(rows, q.limit, await workers.presenter(rows));
  });

  app.get('/v1/workers/:id', {
    config: { scope: 'calls:read' },
    schema: { operationId: 'getWorker', tags, summary: 'Fetch a worker', params: IdParams,
      response: { 200: Type.Ref('Worker'), ...problemResponses('not_found') } },
  }, async (request) => workers.get(request.auth.account.id, request.auth.mode, request.params.id));

  app.patch('/v1/workers/:id', {
    config: { scope: 'calls:write' },
    schema: { operationId: 'updateWorker', tags, summary: 'Change a worker, or set it available or offline', params: IdParams, body: UpdateWorkerBody,
      response: { 200: Type.Ref('Worker'), ...problemResponses('not_found', 'sip_user_taken', 'reach_not_allowed', 'worker_busy', 'invalid_state_transition') } },
  }, async (request) => {
    const { account, mode, clock } = request.auth;
    return workers.update(account.id, mode, clock, request.params.id, request.body);
  });

  app.delete('/v1/workers/:id', {
    config: { scope: 'calls:write' },
    schema: { operationId: 'deleteWorker', tags, summary: 'Delete a worker that is not on a call', params: IdParams,
      response: { 200: DeletedWorkerSchema, ...problemResponses('not_found', 'worker_busy') } },
  }, async (request) => workers.delete(request.auth.account.id, request.auth.mode, request.params.id));

  app.post('/v1/workers/:id/sip_credentials', {
    config: { scope: 'calls:write' },
    schema: {
      operationId: 'createWorkerSipCredentials', tags, summary: 'Issue the SIP user name and a new password for the worker\'s softphone (shown once)', params: IdParams,
      description: 'The password is in this answer only: Switchboard keeps its digest (HA1) and nothing else. Another POST issues a new password and the old one stops working at once.',
      response: { 200: Type.Ref('SipCredentials'), ...problemResponses('not_found', 'worker_not_softphone') },
    },
  }, async (request) => {
    const { account, mode, clock } = request.auth;
    return workers.issueSipCredentials(account.id, mode, clock, request.params.id);
  });

  app.get('/v1/workers/:id/stats', {
    config: { scope: 'calls:read' },
    schema: {
      operationId: 'getWorkerStats', tags, summary: 'A worker\'s statistics: calls handled and missed, talk, wrap-up and idle time, occupancy', params: IdParams, querystring: WorkerStatsQuery,
      response: { 200: Type.Ref('WorkerStats'), ...problemResponses('not_found') },
    },
  }, async (request) => workerStats.of(request.auth.account.id, request.auth.mode, request.auth.clock, request.params.id, request.query.window_minutes));

  app.get('/v1/queues/:id/stats', {
    config: { scope: 'calls:read' },
    schema: {
      operationId: 'getQueueStats', tags: ['Queues'], summary: 'A queue\'s live statistics: waits, answered and abandoned callers, service level, workers by status', params: IdParams, querystring: StatsQuery,
      response: { 200: Type.Ref('QueueStats'), ...problemResponses('not_found') },
    },
  }, async (request) => queueStats.of(request.auth.account.id, request.auth.mode, request.auth.clock, request.params.id, request.query.window_minutes));
}
