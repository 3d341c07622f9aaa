import { Type } from 'typebox';
import type { App } from '../../platform/app-type.ts';
import { IdParams, Page, problemResponses } from '../../platform/schemas.ts';
import { toPage } from '../../platform/pagination.ts';
import { presentMonitor } from './presenter.ts';
import { MonitorCreateBody, MonitorListQuery, MonitorParams, MonitorPatch } from './schema.ts';
import type { MonitorService } from './service.ts';

export function monitorRoutes(app: App, monitors: MonitorService): void {
  const tags = ['Calls'];
  const Monitor = Type.Ref('CallMonitor');

  app.post('/v1/calls/:id/monitor', {
    config: { scope: 'calls:write' },
    schema: { operationId: 'monitorCall', tags, summary: 'Call a supervisor and seat it beside the call\'s conversation (listen, whisper or barge)', params: IdParams, body: MonitorCreateBody,
      description: 'The call must be in progress and connected to another (a queue\'s caller and the call that took it: a routed worker, or a dequeue verb). '
        + 'Switchboard calls the supervisor (its call runs the monitor verb); call.monitor.started follows when it answers. The response is the monitor, dialing.',
      response: { 200: Monitor, ...problemResponses('not_found', 'call_not_in_progress', 'call_not_monitorable', 'call_already_monitored', 'from_number_not_owned', 'concurrent_call_limit') } },
  }, async (request) => monitors.create(request.auth, request.params.id, request.body));

  app.get('/v1/calls/:id/monitors', {
    config: { scope: 'calls:read' },
    schema: { operationId: 'listCallMonitors', tags, summary: 'List the monitors of the call\'s conversations, newest first', params: IdParams, querystring: MonitorListQuery,
      response: { 200: Page(Monitor, 'CallMonitor'), ...problemResponses('not_found') } },
  }, async (request) => {
    const q = request.query;
    const rows = await monitors.list(request.auth, request.params.id, { limit: q.limit, startingAfter: q.starting_after });
    return toPage(rows, q.limit, presentMonitor);
  });

  app.get('/v1/calls/:id/monitors/:monitor_id', {
    config: { scope: 'calls:read' },
    schema: { operationId: 'getCallMonitor', tags, summary: 'Fetch a monitor', params: MonitorParams,
      response: { 200: Monitor, ...problemResponses('not_found') } },
  }, async (request) => monitors.get(request.auth, request.params.id, request.params.monitor_id));

  app.patch('/v1/calls/:id/monitors/:monitor_id', {
    config: { scope: 'calls:write' },
    schema: { operationId: 'updateCallMonitor', tags, summary: 'Change a monitor\'s mode (listen, whisper, barge) from now', params: MonitorParams, body: MonitorPatch,
      description: 'call.monitor.updated follows. A supervisor still ringing takes its seat in the new mode.',
      response: { 200: Monitor, ...problemResponses('not_found', 'monitor_ended') } },
  }, async (request) => monitors.update(request.auth, request.params.id, request.params.monitor_id, request.body));

  app.delete('/v1/calls/:id/monitors/:monitor_id', {
    config: { scope: 'calls:write' },
    schema: { operationId: 'endCallMonitor', tags, summary: 'End a monitor: the supervisor leaves, the conversation goes on', params: MonitorParams,
      description: 'A seated supervisor\'s flow goes on with its next verb (a supervisor placed by POST .../monitor has none and hangs up); a ringing one is hung up. A monitor already ended is returned as it is.',
      response: { 200: Monitor, ...problemResponses('not_found') } },
  }, async (request) => monitors.end(request.auth, request.params.id, request.params.monitor_id));
}
