// Who sits in which conference, and what follows from it: the first participant makes the
// conference, a start_on_enter one starts it, the last one (or an end_on_exit one) leaving
// ends it, and every change is handed to the media port as the conference's new mix in the
// same transaction. Lock order, everywhere: the participant's call (when there is one), then
// the conference; other participants' calls are never locked here (their flows are told
// through their media port, which reports back in transactions of their own).
import type { Platform } from '../../platform/context.ts';
import type { Clock } from '../../platform/clock.ts';
import type { EventEmitter } from '../../events/emit.ts';
import type { EventType } from '../../events/catalogue.ts';
import type { Mode } from '../../store/platform-tables.ts';
import type { Trx } from '../../store/transaction.ts';
import { sql } from 'kysely';
import { newId } from '../../platform/ids.ts';
import type { ConferenceMedia, VoiceCarriers } from '../../carriers/index.ts';
import type { ConferenceMix, ConferenceStatus } from '../../telephony/conference.ts';
import type { CallRow } from '../calls/tables.ts';
import { flowStateOf } from '../calls/flows/state.ts';
import type { ConferenceSeatRequest, FlowConferences } from '../calls/flows/verbs/verb.ts';
import type { RecordingService } from '../recordings/service.ts';
import type { ConferenceParticipantRow, ConferenceRow } from './tables.ts';
import { presentConference, presentParticipant, type Conference } from './presenter.ts';
import { transition } from './states.ts';

/** The predicate of the partial unique index conferences_open_name, written as the index has it (a bound parameter would not match it). */
const OPEN_NAME_INDEX_PREDICATE = sql<boolean>`status <> 'completed'`;

export type LeftReason = 'removed' | 'conference_ended' | 'flow_updated' | 'hangup';
export type EndReason = 'last_left' | 'end_on_exit' | 'api' | 'node_lost';

export class ConferenceSeating implements Omit<FlowConferences, 'askWaitUrl'> {
  constructor(
    private readonly platform: Platform,
    private readonly events: EventEmitter,
    private readonly carriers: VoiceCarriers,
    private readonly recordings: RecordingService,
  ) {}

  /** The conference's row, locked for the rest of `trx`. */
  async lock(trx: Trx, id: string): Promise<ConferenceRow | undefined> {
    let q = trx.selectFrom('conferences').selectAll().where('id', '=', id);
    if (this.platform.database.engine === 'postgres') q = q.forUpdate();
    return q.executeTakeFirst();
  }

  async present(trx: Trx, row: ConferenceRow): Promise<Conference> {
    const { count } = await trx.selectFrom('conference_participants').select((eb) => eb.fn.countAll<number>().as('count'))
      .where('conference_id', '=', row.id).where('status', '=', 'joined').executeTakeFirstOrThrow();
    return presentConference(row, Number(count));
  }

  async seated(trx: Trx, conferenceId: string): Promise<ConferenceParticipantRow[]> {
    return trx.selectFrom('conference_participants').selectAll().where('conference_id', '=', conferenceId).where('status', '=', 'joined').orderBy('id').execute();
  }

  private media(mode: Mode): ConferenceMedia | undefined {
    return this.carriers.forMode(mode).media.conferences;
  }

  /** The conference's mix as its seats now stand. */
  async mixOf(trx: Trx, conference: ConferenceRow, status: ConferenceStatus = conference.status): Promise<ConferenceMix> {
    const seats = status === 'completed' ? [] : await this.seated(trx, conference.id);
    return {
      conferenceId: conference.id, accountId: conference.account_id, mode: conference.mode, status, home: conference.node,
      seats: seats.map((s) => ({ callId: s.id, muted: s.muted === 1, hold: s.hold === 1, coachOf: s.coach_call_id, beep: s.beep === 1 })),
    };
  }

  async mixChanged(trx: Trx, conference: ConferenceRow): Promise<void> {
    await this.media(conference.mode)?.mixChanged(trx, await this.mixOf(trx, conference));
  }

  /** FlowConferences: the conference verb seats `call` (locked by the flow's transaction). */
  async join(trx: Trx, call: CallRow, seat: ConferenceSeatRequest, clock: Clock): ReturnType<FlowConferences['join']> {
    if (!this.carriers.named(call.carrier).media.conferences) {
      return { refused: 'unsupported', detail: `calls of the ${call.carrier} carrier cannot join conferences yet; try the conference with a sandbox key` };
    }
    let conference = await this.open(trx, call, seat, clock);
    const present = await this.seated(trx, conference.id);
    if (present.length >= conference.max_participants) return { refused: 'full', conferenceId: conference.id };
    const now = clock.now().toISOString();
    const row: ConferenceParticipantRow = {
      id: call.id, conference_id: conference.id, account_id: call.account_id, mode: call.mode, status: 'joined',
      muted: seat.muted ? 1 : 0, hold: 0, coach_call_id: seat.coachCallId, start_on_enter: seat.startOnEnter ? 1 : 0,
      end_on_exit: seat.endOnExit ? 1 : 0, beep: seat.beep ? 1 : 0, joined_at: now, left_at: null, left_reason: null, updated_at: now,
    };
    // A call that was in this conference before takes its seat again.
    const { id: _id, conference_id: _conference, ...again } = row;
    await trx.insertInto('conference_participants').values(row)
      .onConflict((oc) => oc.columns(['conference_id', 'id']).doUpdateSet(again)).execute();
    await this.emitParticipant(trx, conference, row, 'conference.participant.joined', call.webhook_url, clock);
    if (seat.record && conference.record === 0) {
      await trx.updateTable('conferences').set({ record: 1 }).where('id', '=', conference.id).execute();
      conference = { ...conference, record: 1 };
    }
    if (conference.status === 'waiting' && seat.startOnEnter) {
      conference = await transition(trx, this.deps(trx, clock), conference, 'in_progress');
    }
    await this.mixChanged(trx, conference);
    if (conference.status === 'in_progress' && conference.record === 1 && conference.recording_id === null) {
      const recordingId = await this.recordings.startForConference(trx, call, await this.mixOf(trx, conference), clock);
      await trx.updateTable('conferences').set({ recording_id: recordingId }).where('id', '=', conference.id).execute();
    }
    return { conferenceId: conference.id };
  }

  /**
   * The open conference of this name, locked; made now if there is none, mixed on the node of
   * `call` (its first participant). Two first joins at once: the unique index on open names
   * lets one insert, the other finds it.
   */
  private async open(trx: Trx, call: CallRow, seat: ConferenceSeatRequest, clock: Clock): Promise<ConferenceRow> {
    const { account_id: accountId, mode } = call;
    const find = async () => {
      const found = await trx.selectFrom('conferences').select('id').where('account_id', '=', accountId).where('mode', '=', mode)
        .where('name', '=', seat.name).where('status', '!=', 'completed').executeTakeFirst();
      return found ? this.lock(trx, found.id) : undefined;
    };
    const existing = await find();
    if (existing) return existing;
    const now = clock.now().toISOString();
    const row: ConferenceRow = {
      id: newId('conference'), account_id: accountId, mode, name: seat.name, status: 'waiting', max_participants: seat.maxParticipants,
      record: 0, recording_id: null, end_reason: null, node: call.node ?? null, created_at: now, started_at: null, ended_at: null, updated_at: now,
    };
    await trx.insertInto('conferences').values(row)
      .onConflict((oc) => oc.columns(['account_id', 'mode', 'name']).where(OPEN_NAME_INDEX_PREDICATE).doNothing()).execute();
    return (await find())!;
  }

  async seatedIn(trx: Trx, callId: string): Promise<string | null> {
    const seat = await trx.selectFrom('conference_participants').select('conference_id').where('id', '=', callId).where('status', '=', 'joined').executeTakeFirst();
    return seat?.conference_id ?? null;
  }

  async homeOf(trx: Trx, conferenceId: string): Promise<string | null> {
    const row = await trx.selectFrom('conferences').select('node').where('id', '=', conferenceId).executeTakeFirst();
    return row?.node ?? null;
  }

  /** FlowConferences: `call` (locked) left its conference's verb, or hung up. */
  async leave(trx: Trx, call: CallRow, reason: 'removed' | 'flow_updated' | 'hangup', clock: Clock): Promise<void> {
    const conferenceId = await this.seatedIn(trx, call.id);
    if (!conferenceId) return;
    const conference = (await this.lock(trx, conferenceId))!;
    const seat = (await this.seated(trx, conferenceId)).find((s) => s.id === call.id);
    if (seat) await this.unseat(trx, conference, seat, reason, call.webhook_url, clock);
  }

  /** Frees `seat`; the conference ends if it was its last participant or an end_on_exit one, else its mix changes. */
  async unseat(trx: Trx, conference: ConferenceRow, seat: ConferenceParticipantRow, reason: LeftReason, webhookUrl: string | null, clock: Clock): Promise<ConferenceParticipantRow> {
    const left = await this.markLeft(trx, conference, seat, reason, webhookUrl, clock);
    const remaining = await this.seated(trx, conference.id);
    if (seat.end_on_exit === 1 || remaining.length === 0) await this.end(trx, conference, seat.end_on_exit === 1 ? 'end_on_exit' : 'last_left', clock);
    else await this.mixChanged(trx, conference);
    return left;
  }

  private async markLeft(trx: Trx, conference: ConferenceRow, seat: ConferenceParticipantRow, reason: LeftReason, webhookUrl: string | null, clock: Clock): Promise<ConferenceParticipantRow> {
    const now = clock.now().toISOString();
    const changes = { status: 'left' as const, left_at: now, left_reason: reason, updated_at: now };
    await trx.updateTable('conference_participants').set(changes).where('conference_id', '=', seat.conference_id).where('id', '=', seat.id).execute();
    const left = { ...seat, ...changes };
    await this.emitParticipant(trx, conference, left, 'conference.participant.left', webhookUrl, clock);
    return left;
  }

  /**
   * Ends the conference (locked): everyone still in it leaves (their flows go on with the next
   * verb), its recording stops and is processed, and the mix goes silent.
   */
  async end(trx: Trx, conference: ConferenceRow, reason: EndReason, clock: Clock): Promise<ConferenceRow> {
    const seats = await this.seated(trx, conference.id);
    const calls = seats.length === 0 ? [] : await trx.selectFrom('calls').selectAll().where('id', 'in', seats.map((s) => s.id)).execute();
    for (const seat of seats) {
      const call = calls.find((c) => c.id === seat.id);
      await this.markLeft(trx, conference, seat, 'conference_ended', call?.webhook_url ?? null, clock);
      if (call) await this.moveOn(trx, call);
    }
    const ended = await transition(trx, this.deps(trx, clock), conference, 'completed', { end_reason: reason });
    const silent = await this.mixOf(trx, ended);
    if (ended.recording_id) await this.recordings.stopForConference(trx, ended.recording_id, silent, clock);
    await this.media(ended.mode)?.mixChanged(trx, silent);
    return ended;
  }

  /** A participant removed or whose conference ended: its conference verb is cut short, so its flow goes on. */
  async moveOn(trx: Trx, call: CallRow): Promise<void> {
    const op = flowStateOf(call)?.op;
    if (call.status !== 'in_progress' || !op) return;
    await this.carriers.named(call.carrier).media.interrupt(trx, call, op);
  }

  async emitParticipant(trx: Trx, conference: ConferenceRow, row: ConferenceParticipantRow, type: EventType, webhookUrl: string | null, clock: Clock): Promise<void> {
    await this.events.emit(trx, {
      accountId: conference.account_id, mode: conference.mode, type, resourceType: 'conference', resourceId: conference.id,
      object: presentParticipant(row), webhookUrl, clock,
    });
  }

  private deps(trx: Trx, clock: Clock) {
    return { events: this.events, clock, present: (row: ConferenceRow) => this.present(trx, row) };
  }
}
