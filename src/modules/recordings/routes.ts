import { Type } from 'typebox';
import type { App } from '../../platform/app-type.ts';
import { IdParams, Page, problemResponses } from '../../platform/schemas.ts';
import { toPage } from '../../platform/pagination.ts';
import { RecordingListQuery, RedactBody, StartRecordingBody, CallRecordingListQuery } from './schema.ts';
import type { RecordingService } from './service.ts';

export function recordingRoutes(app: App, recordings: RecordingService): void {
  const tags = ['Recordings'];
  const Recording = Type.Ref('Recording');

  app.post('/v1/calls/:id/recordings', {
    config: { scope: 'recordings:write' },
    schema: { operationId: 'startCallRecording', tags, summary: 'Start a new recording of a call in progress', params: IdParams,
      body: Type.Optional(StartRecordingBody),
      response: { 200: Recording, ...problemResponses('not_found', 'call_not_in_progress', 'recording_in_progress') } },
  }, async (request) => recordings.startOnCall(request.auth, request.params.id, request.body?.channels ?? 2));

  app.get('/v1/calls/:id/recordings', {
    config: { scope: 'recordings:read' },
    schema: { operationId: 'listCallRecordings', tags, summary: 'List the recordings of a call, newest first', params: IdParams, querystring: CallRecordingListQuery,
      response: { 200: Page(Recording, 'Recording'), ...problemResponses('not_found') } },
  }, async (request) => {
    const q = request.query;
    const rows = await recordings.listOfCall(request.auth, request.params.id, { limit: q.limit, startingAfter: q.starting_after });
    return toPage(rows, q.limit, recordings.present);
  });

  app.get('/v1/recordings', {
    config: { scope: 'recordings:read' },
    schema: { operationId: 'listRecordings', tags, summary: 'List recordings, newest first', querystring: RecordingListQuery,
      response: { 200: Page(Recording, 'Recording'), ...problemResponses() } },
  }, async (request) => {
    const q = request.query;
    const rows = await recordings.list(request.auth.account.id, request.auth.mode, {
      limit: q.limit, startingAfter: q.starting_after, callId: q.call_id, conferenceId: q.conference_id, status: q.status,
      createdGte: q.created_gte, createdLte: q.created_lte,
    });
    return toPage(rows, q.limit, recordings.present);
  });

  app.get('/v1/recordings/:id', {
    config: { scope: 'recordings:read' },
    schema: { operationId: 'getRecording', tags, summary: 'Fetch a recording with its transcript', params: IdParams,
      response: { 200: Recording, ...problemResponses('not_found') } },
  }, async (request) => recordings.present(await recordings.get(request.auth.account.id, request.auth.mode, request.params.id)));

  app.delete('/v1/recordings/:id', {
    config: { scope: 'recordings:write' },
    schema: {
      operationId: 'deleteRecording', tags, summary: 'Delete a recording\'s audio and transcript, irreversibly', params: IdParams,
      description: 'Removes the WAV file and the transcript for good (also from the recording\'s earlier events) and fires call.recording.deleted. '
        + 'The recording remains with status `deleted` (media_url and transcript null), so a repeat answers 200 with it. '
        + 'A recording still recording, paused, stopped or processing is 409 recording_not_ready: stop it and delete it once it is ready.',
      response: { 200: Recording, ...problemResponses('not_found', 'recording_not_ready') },
    },
  }, async (request) => recordings.delete(request.auth, request.params.id));

  app.get('/v1/recordings/:id/media', {
    config: { scope: 'recordings:read' },
    schema: {
      operationId: 'getRecordingMedia', tags, summary: 'Download the recording as a WAV file (16-bit PCM)', params: IdParams,
      response: {
        200: { description: 'The WAV file.', content: { 'audio/wav': { schema: { type: 'string', format: 'binary' } } } } as any,
        ...problemResponses('not_found', 'recording_not_ready', 'recording_deleted'),
      },
    },
  }, async (request, reply) => {
    const { stream, size } = await recordings.mediaOf(request.auth.account.id, request.auth.mode, request.params.id);
    return reply.type('audio/wav')
      .header('content-length', size)
      .header('content-disposition', `attachment; filename="${request.params.id}.wav"`)
      .header('cache-control', 'private, no-store')
      .send(stream);
  });

  for (const [action, summary, run] of [
    ['start', 'Start (resume or restart) a recording of a call in progress', recordings.start],
    ['pause', 'Pause a recording; start resumes it', recordings.pause],
    ['stop', 'Stop a recording; it is then processed and becomes ready', recordings.stopByApi],
  ] as const) {
    app.post(`/v1/recordings/:id/${action}`, {
      config: { scope: 'recordings:write' },
      schema: { operationId: `${action}Recording`, tags, summary, params: IdParams,
        description: 'A recording made by a flow\'s record verb (source flow) belongs to the verb, which ends it: '
          + 'starting, pausing or stopping it is 409 invalid_state_transition (stopping one already stopped returns it as it is). '
          + 'To cut it short, give the call its next flow with POST /v1/calls/{id}/flow.',
        response: { 200: Recording, ...problemResponses('not_found', 'invalid_state_transition', 'call_not_in_progress', ...(action === 'start' ? ['recording_in_progress', 'recording_deleted'] as const : [])) } },
    }, async (request) => run.call(recordings, request.auth, request.params.id));
  }

  app.post('/v1/recordings/:id/redact', {
    config: { scope: 'recordings:write' },
    schema: {
      operationId: 'redactRecording', tags, summary: 'Redact PII from the transcript and silence it in the audio, irreversibly', params: IdParams,
      body: Type.Optional(RedactBody),
      response: { 200: Recording, ...problemResponses('not_found', 'recording_not_ready', 'recording_deleted') },
    },
  }, async (request) => recordings.redact(request.auth, request.params.id, request.body?.types));
}
