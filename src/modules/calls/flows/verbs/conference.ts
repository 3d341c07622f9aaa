// `conference`: seat the call in a conference by name, made when its first participant joins
// (per account and mode), and stay there until the participant is removed (DELETE
// /v1/conferences/{id}/participants/{call_id}), the conference ends, or the call hangs up;
// then the flow goes on with its next verb. Until a `start_on_enter` participant arrives,
// everyone hears the wait audio. The conferences module owns the resource (FlowConferences);
// the media port mixes (telephony/conference.ts says who hears whom).
import { Type } from 'typebox';
import { closeEntry } from '../state.ts';
import { Prompt, promptOp, promptUrl } from './gather.ts';
import { defineVerb, plainResult } from './verb.ts';

/** The most participants one conference may have. */
export const MAX_PARTICIPANTS = 100;

export const ConferenceVerb = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_.:-]+$', description: 'The conference to join, by name: one is open per account and mode at a time; the first participant makes it.', examples: ['support-42'] }),
  muted: Type.Optional(Type.Boolean({ default: false, description: 'The participant hears, but nobody hears it.' })),
  start_on_enter: Type.Optional(Type.Boolean({ default: true, description: 'The conference starts when this participant joins; until one such participant has joined, everyone hears the wait audio.' })),
  end_on_exit: Type.Optional(Type.Boolean({ default: false, description: 'The conference ends (every other participant goes on with its flow) when this participant leaves.' })),
  beep: Type.Optional(Type.Boolean({ default: true, description: 'The others hear a beep when this participant joins and leaves.' })),
  wait_flow: Type.Optional(Type.Array(Prompt, { minItems: 1, maxItems: 10, description: 'What this participant hears, looped, until the conference starts (say, play, pause); default: a hold tone.' })),
  max_participants: Type.Optional(Type.Integer({ minimum: 2, maximum: MAX_PARTICIPANTS, default: 10, description: 'Set by the participant that makes the conference; a participant beyond it is refused (the verb ends with reason full and the flow goes on).' })),
  record: Type.Optional(Type.Boolean({ default: false, description: 'Record the conference from its start to its end: one recording (source conference, conference_id set, one channel of what the room hears).' })),
  coach_call_id: Type.Optional(Type.String({ maxLength: 64, description: 'A coach (whisper): this participant is heard by that participant only (a call in the same conference).' })),
}, { additionalProperties: false, description: 'Join a conference by name; the flow goes on when the participant is removed or the conference ends.' });

export const conference = defineVerb({
  name: 'conference',
  schema: ConferenceVerb,
  urls: (body) => (body.wait_flow ?? []).flatMap((p, j) => {
    const url = promptUrl(p);
    return url === null ? [] : [{ path: `wait_flow[${j}].play.url`, url }];
  }),
  audio: (body) => (body.wait_flow ?? []).flatMap((p) => promptUrl(p) ?? []),
  withoutAudio: 'run',
  async run(flow, step, body) {
    const { trx, call, state, log, clock } = step;
    const seat = await flow.conferences().join(trx, call, {
      name: body.name,
      muted: body.muted ?? false,
      startOnEnter: body.start_on_enter ?? true,
      endOnExit: body.end_on_exit ?? false,
      beep: body.beep ?? true,
      maxParticipants: body.max_participants ?? 10,
      record: body.record ?? false,
      coachCallId: body.coach_call_id ?? null,
    }, clock);
    if ('detail' in seat) {
      closeEntry(log, clock.now().toISOString(), { reason: 'unsupported', detail: seat.detail });
      return flow.apologise(trx, call, state, log, clock, {
        cause: 'unsupported_verb', url: null, statusCode: null, field: `flow[${state.pc}].conference`, detail: `flow[${state.pc}].conference cannot run on this call: ${seat.detail}.`,
      });
    }
    if ('refused' in seat) {
      closeEntry(log, clock.now().toISOString(), { conference_id: seat.conferenceId, reason: seat.refused });
      return flow.advance(trx, call, { ...state, op: null, pc: state.pc + 1 }, log, clock);
    }
    await flow.runMedia(step);
  },
  op: (body, call, audio) => ({
    kind: 'conference',
    // Known once the call is seated (prepare).
    conferenceId: '',
    // A wait prompt whose audio could not be fetched is left out; none left: the hold tone.
    wait: body.wait_flow
      ? nullIfEmpty(body.wait_flow.filter((p) => { const url = promptUrl(p); return url === null || audio.has(url); }).map((p) => promptOp(p, call, audio)))
      : null,
  }),
  async prepare(flow, { trx, call }, op) {
    const conferenceId = await flow.conferences().seatedIn(trx, call.id);
    if (conferenceId === null) throw new Error(`call ${call.id} runs a conference verb without a seat`);
    // A call held by another node than the conference's joins it over a node-to-node media leg.
    return { op: { ...op, conferenceId, home: await flow.conferences().homeOf(trx, conferenceId) } as typeof op };
  },
  logResult: (_body, result) => (result.kind === 'conference' ? { conference_id: result.conferenceId, reason: result.reason === 'hangup' ? 'hangup' : 'left' } : plainResult(result)),
  async finished(flow, { trx, call, state, clock }, _body, result) {
    // Removed or ended: the conferences module freed the seat already. A live update (or a
    // hang-up this verb saw first) frees it here.
    if (result.kind === 'conference') await flow.conferences().leave(trx, call, result.reason === 'hangup' ? 'hangup' : state.replacement ? 'flow_updated' : 'removed', clock);
  },
});

function nullIfEmpty<T>(items: T[]): T[] | null {
  return items.length === 0 ? null : items;
}
