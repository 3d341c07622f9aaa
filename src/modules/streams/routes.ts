import { Type } from 'typebox';
import type { App } from '../../platform/app-type.ts';
import { IdParams, Page, problemResponses } from '../../platform/schemas.ts';
import { toPage } from '../../platform/pagination.ts';
import { StartStreamBody, StreamListQuery } from './schema.ts';
import type { StreamService } from './service.ts';

const StreamParams = Type.Object({ id: IdParams.properties.id, stream_id: Type.String({ minLength: 1, maxLength: 64 }) });

export function streamRoutes(app: App, streams: StreamService): void {
  const tags = ['Streams'];
  const Stream = Type.Ref('Stream');

  app.post('/v1/calls/:id/streams', {
    config: { scope: 'calls:write' },
    schema: {
      operationId: 'startCallStream', tags, summary: 'Stream a call\'s audio to a WebSocket server (media streams)', params: IdParams, body: StartStreamBody,
      description: 'Connects to `url` (handshake signed with webhook-id, webhook-timestamp and webhook-signature) and streams the call\'s audio as JSON frames '
        + '(docs/media-streams.md). The stream is `connecting`; call.stream.started or call.stream.failed follows.',
      response: { 200: Stream, ...problemResponses('not_found', 'call_not_in_progress', 'stream_bidirectional_in_progress', 'streams_unavailable', 'webhook_url_not_allowed') },
    },
  }, async (request) => streams.startByApi(request.auth, request.params.id, request.body));

  app.get('/v1/calls/:id/streams', {
    config: { scope: 'calls:read' },
    schema: { operationId: 'listCallStreams', tags, summary: 'List the media streams of a call, newest first', params: IdParams, querystring: StreamListQuery,
      response: { 200: Page(Stream, 'Stream'), ...problemResponses('not_found') } },
  }, async (request) => {
    const q = request.query;
    return toPage(await streams.list(request.auth, request.params.id, { limit: q.limit, startingAfter: q.starting_after }), q.limit, streams.present);
  });

  app.post('/v1/calls/:id/streams/:stream_id/stop', {
    config: { scope: 'calls:write' },
    schema: {
      operationId: 'stopCallStream', tags, summary: 'Stop a media stream', params: StreamParams,
      description: 'The stream is stopped at once (call.stream.stopped, reason stopped) and answers with status stopped; the server then gets a stop frame and the socket closes '
        + '(on the node that holds it, when that is another one). '
        + 'A flow held by the stream goes on. A stream already stopped or failed is returned unchanged.',
      response: { 200: Stream, ...problemResponses('not_found') },
    },
  }, async (request) => streams.stopByApi(request.auth, request.params.id, request.params.stream_id));
}
