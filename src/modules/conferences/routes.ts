import { Type } from 'typebox';
import type { App } from '../../platform/app-type.ts';
import { IdParams, Page, problemResponses } from '../../platform/schemas.ts';
import { toPage } from '../../platform/pagination.ts';
import { presentParticipant } from './presenter.ts';
import { AnnounceBody, ConferenceListQuery, DialInBody, ParticipantListQuery, ParticipantParams, ParticipantPatch } from './schema.ts';
import type { ConferenceService } from './service.ts';

export function conferenceRoutes(app: App, conferences: ConferenceService): void {
  const tags = ['Conferences'];
  const Conference = Type.Ref('Conference');
  const Participant = Type.Ref('ConferenceParticipant');

  app.get('/v1/conferences', {
    config: { scope: 'calls:read' },
    schema: { operationId: 'listConferences', tags, summary: 'List conferences, newest first', querystring: ConferenceListQuery,
      response: { 200: Page(Conference, 'Conference'), ...problemResponses() } },
  }, async (request) => {
    const q = request.query;
    const { rows, present } = await conferences.list(request.auth, { limit: q.limit, startingAfter: q.starting_after, status: q.status, name: q.name });
    const page = toPage(rows, q.limit, (row) => row);
    return { ...page, data: await Promise.all(page.data.map(present)) };
  });

  app.get('/v1/conferences/:id', {
    config: { scope: 'calls:read' },
    schema: { operationId: 'getConference', tags, summary: 'Fetch a conference', params: IdParams,
      response: { 200: Conference, ...problemResponses('not_found') } },
  }, async (request) => conferences.get(request.auth, request.params.id));

  app.post('/v1/conferences/:id/end', {
    config: { scope: 'calls:write' },
    schema: { operationId: 'endConference', tags, summary: 'End a conference: every participant goes on with its flow', params: IdParams,
      description: 'Its recording, if any, stops and is processed. A conference already ended is returned as it is.',
      response: { 200: Conference, ...problemResponses('not_found') } },
  }, async (request) => conferences.end(request.auth, request.params.id));

  app.post('/v1/conferences/:id/announce', {
    config: { scope: 'calls:write' },
    schema: { operationId: 'announceToConference', tags, summary: 'Say or play something to every participant not on hold', params: IdParams, body: AnnounceBody,
      description: 'Exactly one of `say` and `play`. A `play` URL is fetched first (a 16-bit PCM WAV, under the webhook URL policy, cached by URL); '
        + 'one that cannot be fetched or played is refused (400 validation_failed, field play.url). The conference recording, if any, holds the announcement too.',
      response: { 200: Conference, ...problemResponses('not_found', 'conference_completed', 'conference_not_in_progress') } },
  }, async (request) => conferences.announce(request.auth, request.params.id, request.body));

  app.get('/v1/conferences/:id/participants', {
    config: { scope: 'calls:read' },
    schema: { operationId: 'listConferenceParticipants', tags, summary: 'List a conference\'s participants (present and past), newest call first', params: IdParams, querystring: ParticipantListQuery,
      response: { 200: Page(Participant, 'ConferenceParticipant'), ...problemResponses('not_found') } },
  }, async (request) => {
    const q = request.query;
    const rows = await conferences.participants(request.auth, request.params.id, { limit: q.limit, startingAfter: q.starting_after, status: q.status });
    return toPage(rows, q.limit, presentParticipant);
  });

  app.post('/v1/conferences/:id/participants', {
    config: { scope: 'calls:write' },
    schema: { operationId: 'dialConferenceParticipant', tags, summary: 'Dial a number into the conference: it joins when it answers', params: IdParams, body: DialInBody,
      description: 'Places an outbound call (as POST /v1/calls) whose flow is the conference verb for this conference\'s name; '
        + 'conference.participant.joined follows when it answers. The response is that call.',
      response: { 200: Type.Ref('Call'), ...problemResponses('not_found', 'conference_completed', 'from_number_not_owned', 'concurrent_call_limit') } },
  }, async (request) => conferences.dialIn(request.auth, request.params.id, request.body));

  app.get('/v1/conferences/:id/participants/:call_id', {
    config: { scope: 'calls:read' },
    schema: { operationId: 'getConferenceParticipant', tags, summary: 'Fetch a participant by its call id', params: ParticipantParams,
      response: { 200: Participant, ...problemResponses('not_found') } },
  }, async (request) => conferences.participant(request.auth, request.params.id, request.params.call_id));

  app.patch('/v1/conferences/:id/participants/:call_id', {
    config: { scope: 'calls:write' },
    schema: { operationId: 'updateConferenceParticipant', tags, summary: 'Mute, hold or make a participant a coach', params: ParticipantParams, body: ParticipantPatch,
      response: { 200: Participant, ...problemResponses('not_found', 'participant_not_in_conference') } },
  }, async (request) => conferences.update(request.auth, request.params.id, request.params.call_id, request.body));

  app.delete('/v1/conferences/:id/participants/:call_id', {
    config: { scope: 'calls:write' },
    schema: { operationId: 'removeConferenceParticipant', tags, summary: 'Remove a participant: its call goes on with the next verb of its flow', params: ParticipantParams,
      response: { 200: Participant, ...problemResponses('not_found', 'participant_not_in_conference') } },
  }, async (request) => conferences.remove(request.auth, request.params.id, request.params.call_id));
}
