// The conversation a monitor supervises, and how its mix looks with a supervisor in it.
//
// A conversation is two calls connected by a queue (queue_members, status bridged, with a
// peer call): the caller that waited, and the call that took it out of the queue: a dequeue
// verb's call, which is what a routed worker's call runs. That taking call is the agent: the
// one a whisper reaches. (A caller bridged to a dialled number, POST .../dequeue {"to"}, has no
// second call to seat anyone beside, and is not a conversation here; a conference is
// supervised with its own participants: muted, coach_call_id.)
//
// The two calls' ports mix them under connectionMixId(caller, agent); the monitor hands the
// ports that same mix with the supervisor's seat added (telephony/conference.ts `hears`):
//   listen  -> muted: it hears both, nobody hears it;
//   whisper -> a coach of the agent: only the agent hears it;
//   barge   -> a plain seat: both hear it.
import type { Trx } from '../../store/transaction.ts';
import { connectionMixId, type ConferenceMix, type ConferenceSeat, type ConferenceStatus } from '../../telephony/conference.ts';
import type { MonitorRow } from './tables.ts';

export interface Conversation {
  callerCallId: string;
  agentCallId: string;
}

/** The conversation `callId` is in now (as the caller or as the agent), if any. */
export async function conversationOf(trx: Trx, callId: string): Promise<Conversation | undefined> {
  const bridged = await trx.selectFrom('queue_members').select(['call_id', 'peer_call_id'])
    .where('status', '=', 'bridged').where('peer_call_id', 'is not', null)
    .where((eb) => eb.or([eb('call_id', '=', callId), eb('peer_call_id', '=', callId)]))
    .orderBy('id', 'desc').limit(1).executeTakeFirst();
  return bridged?.peer_call_id ? { callerCallId: bridged.call_id, agentCallId: bridged.peer_call_id } : undefined;
}

/** Whether the conversation of `row` still is one (both calls connected). */
export async function stillConnected(trx: Trx, row: Pick<MonitorRow, 'caller_call_id' | 'agent_call_id'>): Promise<boolean> {
  const now = await conversationOf(trx, row.caller_call_id);
  return now?.agentCallId === row.agent_call_id;
}

const plain = (callId: string): ConferenceSeat => ({ callId, muted: false, hold: false, coachOf: null, beep: false });

/** The supervisor's seat in `row`'s mode. */
export function supervisorSeat(row: Pick<MonitorRow, 'supervisor_call_id' | 'agent_call_id' | 'monitor_mode'>): ConferenceSeat {
  return {
    callId: row.supervisor_call_id, muted: row.monitor_mode === 'listen', hold: false,
    coachOf: row.monitor_mode === 'whisper' ? row.agent_call_id : null, beep: false,
  };
}

/** The conversation's mix: its two calls, and the supervisor when `seated`. */
export function conversationMix(row: MonitorRow, seated: boolean, status: ConferenceStatus = 'in_progress'): ConferenceMix {
  return {
    conferenceId: connectionMixId(row.caller_call_id, row.agent_call_id), accountId: row.account_id, mode: row.mode, status,
    seats: status === 'completed' ? [] : [plain(row.caller_call_id), plain(row.agent_call_id), ...(seated ? [supervisorSeat(row)] : [])],
  };
}
