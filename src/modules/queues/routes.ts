// The queues' HTTP surface: thin, each route hands its checked request to QueueService.
import { Type } from 'typebox';
import type { App } from '../../platform/app-type.ts';
import { IdParams, Page, problemResponses } from '../../platform/schemas.ts';
import { toPage } from '../../platform/pagination.ts';
import { CreateQueueBody, DeletedQueueSchema, DequeueBody, MemberParams, QueueListQuery, UpdateQueueBody } from './schema.ts';
import type { QueueService } from './service.ts';

export function queueRoutes(app: App, queues: QueueService): void {
  const tags = ['Queues'];

  app.post('/v1/queues', {
    config: { scope: 'calls:write' },
    schema: { operationId: 'createQueue', tags, summary: 'Create a call queue', body: CreateQueueBody,
      response: { 200: Type.Ref('Queue'), ...problemResponses('queue_name_taken', 'webhook_url_not_allowed') } },
  }, async (request) => {
    const { account, mode, clock } = request.auth;
    return queues.create(account.id, mode, clock, request.body);
  });

  app.get('/v1/queues', {
    config: { scope: 'calls:read' },
    schema: { operationId: 'listQueues', tags, summary: 'List call queues, newest first', querystring: QueueListQuery,
      response: { 200: Page(Type.Ref('Queue'), 'Queue'), ...problemResponses() } },
  }, async (request) => {
    const { account, mode, clock } = request.auth;
    const q = request.query;
    const { rows, present } = await queues.list(account.id, mode, clock, { limit: q.limit, startingAfter: q.starting_after, name: q.name });
    return toPage(rows, q.limit, present);
  });

  app.get('/v1/queues/:id', {
    config: { scope: 'calls:read' },
    schema: { operationId: 'getQueue', tags, summary: 'Fetch a call queue with its size and waits', params: IdParams,
      response: { 200: Type.Ref('Queue'), ...problemResponses('not_found') } },
  }, async (request) => queues.get(request.auth.account.id, request.auth.mode, request.auth.clock, request.params.id));

  app.patch('/v1/queues/:id', {
    config: { scope: 'calls:write' },
    schema: { operationId: 'updateQueue', tags, summary: 'Change a call queue (callers who join from now on see the change)', params: IdParams, body: UpdateQueueBody,
      response: { 200: Type.Ref('Queue'), ...problemResponses('not_found', 'queue_name_taken', 'webhook_url_not_allowed') } },
  }, async (request) => {
    const { account, mode, clock } = request.auth;
    return queues.update(account.id, mode, clock, request.params.id, request.body);
  });

  app.delete('/v1/queues/:id', {
    config: { scope: 'calls:write' },
    schema: { operationId: 'deleteQueue', tags, summary: 'Delete an empty call queue', params: IdParams,
      response: { 200: DeletedQueueSchema, ...problemResponses('not_found', 'queue_not_empty') } },
  }, async (request) => {
    const { account, mode, clock } = request.auth;
    return queues.delete(account.id, mode, clock, request.params.id);
  });

  app.get('/v1/queues/:id/members', {
    config: { scope: 'calls:read' },
    schema: { operationId: 'listQueueMembers', tags, summary: 'The callers waiting in a queue, next first', params: IdParams,
      response: { 200: Page(Type.Ref('QueueMember'), 'QueueMember'), ...problemResponses('not_found') } },
  }, async (request) => queues.members(request.auth.account.id, request.auth.mode, request.auth.clock, request.params.id));

  app.post('/v1/queues/:id/members/:call_id/dequeue', {
    config: { scope: 'calls:write' },
    schema: {
      operationId: 'dequeueQueueMember', tags, summary: 'Take a waiting caller (or `front`, the next) and bridge it', params: MemberParams, body: DequeueBody,
      description: 'With `to`, the number is dialled and bridged to the caller, whose flow goes on (its enqueue told `bridged`) once the bridge ends. '
        + 'With `call_id`, that call in progress takes the caller: its flow is replaced by a `dequeue` of this caller, and the two talk until one hangs up. '
        + 'Of concurrent dequeues of one caller, exactly one succeeds; the others get 409 queue_member_not_waiting (queue_empty for `front`).',
      response: { 200: Type.Ref('QueueMember'), ...problemResponses('not_found', 'queue_empty', 'queue_member_not_waiting', 'call_not_in_progress', 'flow_not_supported', 'conflict') },
    },
  }, async (request) => {
    const { account, mode, clock } = request.auth;
    return queues.dequeue(account.id, mode, clock, request.params.id, request.params.call_id, request.body);
  });

  app.delete('/v1/queues/:id/members/:call_id', {
    config: { scope: 'calls:write' },
    schema: { operationId: 'removeQueueMember', tags, summary: 'Take a caller out of a queue: its flow goes on after its enqueue (told `leave`)', params: MemberParams,
      response: { 200: Type.Ref('QueueMember'), ...problemResponses('not_found', 'queue_member_not_waiting') } },
  }, async (request) => {
    const { account, mode, clock } = request.auth;
    return queues.remove(account.id, mode, clock, request.params.id, request.params.call_id);
  });
}
