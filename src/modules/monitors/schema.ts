// The Monitor contract: a supervisor seated beside a call's conversation, and the requests
// that start it, change its mode and end it.
import { Type } from 'typebox';
import { NullableTimestamp, PageQuery, Timestamp } from '../../platform/schemas.ts';
import { END_REASONS, MONITOR_MODES, MONITOR_STATUSES } from './kinds.ts';

const Phone = (description: string) => Type.String({ pattern: '^\\+[1-9][0-9]{6,14}$', description: `${description} E.164.`, examples: ['+14155550100'] });

export const MonitorMode = Type.Enum([...MONITOR_MODES], {
  description: 'listen: the supervisor hears both parties and nobody hears it; whisper: only the agent hears it (coaching); barge: both parties hear it.',
});

export const MonitorSchema = Type.Object({
  id: Type.String({ examples: ['mon_01jd8x0v6kf5b9w3t2q1r0p9n8'] }),
  object: Type.Literal('call_monitor'),
  call_id: Type.String({ description: 'The call the monitor was asked for (POST /v1/calls/{id}/monitor): the caller or the agent.' }),
  caller_call_id: Type.String({ description: 'The conversation\'s caller: the call that waited in a queue.' }),
  agent_call_id: Type.String({ description: 'The conversation\'s agent: the call that took the caller out of the queue (a routed worker\'s call, or a dequeue verb\'s). A whisper reaches it only.' }),
  supervisor_call_id: Type.String({ description: 'The supervisor\'s call (GET /v1/calls/{id}); hanging it up ends the monitor only.' }),
  worker_id: Type.Union([Type.String(), Type.Null()], { description: 'The worker who supervises, when named by worker_id.' }),
  mode: MonitorMode,
  status: Type.Enum([...MONITOR_STATUSES], { description: 'dialing: the supervisor\'s phone rings; active: it is seated beside the conversation; ended.' }),
  end_reason: Type.Union([Type.Enum([...END_REASONS]), Type.Null()], {
    description: 'api: DELETE .../monitors/{id}; supervisor_hangup: the supervisor hung up; unanswered: the supervisor never answered; call_ended: the conversation ended; flow_updated: the supervisor\'s call was given a new flow (POST /v1/calls/{id}/flow).',
  }),
  created_at: Timestamp,
  started_at: NullableTimestamp,
  ended_at: NullableTimestamp,
  updated_at: Timestamp,
}, { $id: 'CallMonitor' });

const SupervisorByNumber = Type.Object({
  to: Phone('The supervisor\'s phone: Switchboard calls it and seats it beside the conversation when it answers.'),
  from: Type.Optional(Phone('A voice number of the account the supervisor\'s call comes from; default the account\'s number on the monitored conversation.')),
}, { additionalProperties: false, title: 'supervisor by number' });

const SupervisorByWorker = Type.Object({
  worker_id: Type.String({ pattern: '^wrk_[0-9a-z]+$', maxLength: 64, description: 'A worker reached at a phone number (its reach): Switchboard calls it.', examples: ['wrk_01jd8x0v6kf5b9w3t2q1r0p9n8'] }),
  from: Type.Optional(Phone('A voice number of the account the supervisor\'s call comes from; default the account\'s number on the monitored conversation.')),
}, { additionalProperties: false, title: 'supervisor by worker' });

export const MonitorCreateBody = Type.Object({
  supervisor: Type.Union([SupervisorByNumber, SupervisorByWorker], { description: 'Who supervises: a phone number, or a worker.' }),
  mode: Type.Optional(Type.Enum([...MONITOR_MODES], { default: 'listen', description: 'listen (default), whisper or barge; PATCH .../monitors/{monitor_id} changes it.' })),
  record: Type.Optional(Type.Boolean({ default: false, description: 'Record the supervisor\'s call (what it heard, and said).' })),
  webhook_url: Type.Optional(Type.String({ format: 'uri', maxLength: 2048, description: 'Where the supervisor\'s call\'s own events go.' })),
}, { additionalProperties: false });

export const MonitorPatch = Type.Object({
  mode: Type.Enum([...MONITOR_MODES], { description: 'The new mode, from now.' }),
}, { additionalProperties: false });

export const MonitorParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }), monitor_id: Type.String({ minLength: 1, maxLength: 64 }) });

export const MonitorListQuery = Type.Object({ ...PageQuery });
