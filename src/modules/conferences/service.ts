// Conferences through the API: list and fetch them, end one, announce to it, and manage its
// participants (dial one in, mute, hold, coach, remove). What follows from a seat changing
// (the start, the end, the mix) is seating.ts's, shared with the conference verb.
import type { Platform } from '../../platform/context.ts';
import { fetchPage, type PageInput } from '../../platform/pagination.ts';
import { Problem, invalidField, notFound } from '../../platform/problems.ts';
import { inTransaction, type Trx } from '../../store/transaction.ts';
import { assertWebhookUrlAllowed } from '../webhooks/url-policy.ts';
import type { VoiceCarriers } from '../../carriers/index.ts';
import type { CallService, Caller } from '../calls/service.ts';
import type { Call } from '../calls/presenter.ts';
import type { ConferenceParticipantRow, ConferenceRow } from './tables.ts';
import { presentParticipant, type Conference, type Participant } from './presenter.ts';
import type { ConferenceSeating } from './seating.ts';
import type { ConferenceStatus } from '../../telephony/conference.ts';
import type { PlayOp, SpeakOp } from '../../telephony/media-ops.ts';
import type { FlowAudio } from '../calls/flows/flow-audio.ts';
import type { AnnounceBody } from './schema.ts';

export interface ConferenceListFilter extends PageInput {
  status?: ConferenceStatus | undefined;
  name?: string | undefined;
}

export interface ParticipantChange {
  muted?: boolean | undefined;
  hold?: boolean | undefined;
  coach_call_id?: string | null | undefined;
}

export class ConferenceService {
  constructor(
    private readonly platform: Platform,
    private readonly calls: CallService,
    private readonly carriers: VoiceCarriers,
    readonly seating: ConferenceSeating,
    private readonly audio: FlowAudio,
  ) {}

  private get db() {
    return this.platform.database.db;
  }

  async list(caller: Caller, f: ConferenceListFilter): Promise<{ rows: ConferenceRow[]; present: (row: ConferenceRow) => Promise<Conference> }> {
    let q = this.db.selectFrom('conferences').selectAll().where('account_id', '=', caller.account.id).where('mode', '=', caller.mode);
    if (f.status) q = q.where('status', '=', f.status);
    if (f.name) q = q.where('name', '=', f.name);
    const rows = await fetchPage(q, f);
    return { rows, present: (row) => inTransaction(this.db, (trx) => this.seating.present(trx, row)) };
  }

  async get(caller: Caller, id: string): Promise<Conference> {
    return inTransaction(this.db, async (trx) => this.seating.present(trx, await this.owned(trx, caller, id, false)));
  }

  /** The conference seats of one call (a call sits in one conference at most), with the conference's name and status (the console's call page). */
  async seatsOf(caller: Caller, callId: string): Promise<Array<Participant & { conference_name: string; conference_status: ConferenceStatus }>> {
    const rows = await this.db.selectFrom('conference_participants as p').innerJoin('conferences as c', 'c.id', 'p.conference_id')
      .selectAll('p').select(['c.name as conference_name', 'c.status as conference_status'])
      .where('p.id', '=', callId).where('p.account_id', '=', caller.account.id).where('p.mode', '=', caller.mode)
      .execute();
    return rows.map((row) => ({ ...presentParticipant(row), conference_name: row.conference_name, conference_status: row.conference_status }));
  }

  /** This account's conference in this mode, unlocked; 404 otherwise. */
  private async found(caller: Caller, id: string): Promise<ConferenceRow> {
    const row = await this.db.selectFrom('conferences').selectAll().where('id', '=', id)
      .where('account_id', '=', caller.account.id).where('mode', '=', caller.mode).executeTakeFirst();
    if (!row) throw notFound('conference', id);
    return row;
  }

  /** This account's conference in this mode (locked when `lock`); 404 otherwise. */
  private async owned(trx: Trx, caller: Caller, id: string, lock: boolean): Promise<ConferenceRow> {
    const row = lock
      ? await this.seating.lock(trx, id)
      : await trx.selectFrom('conferences').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row || row.account_id !== caller.account.id || row.mode !== caller.mode) throw notFound('conference', id);
    return row;
  }

  /** POST /v1/conferences/{id}/end: everyone leaves and goes on with its flow. A conference already ended is returned as it is. */
  async end(caller: Caller, id: string): Promise<Conference> {
    return inTransaction(this.db, async (trx) => {
      const conference = await this.owned(trx, caller, id, true);
      if (conference.status === 'completed') return this.seating.present(trx, conference);
      return this.seating.present(trx, await this.seating.end(trx, conference, 'api', caller.clock));
    });
  }

  /** POST /v1/conferences/{id}/announce: every participant not on hold hears it now (and the recording). */
  async announce(caller: Caller, id: string, body: AnnounceBody): Promise<Conference> {
    if ((body.say === undefined) === (body.play === undefined)) throw invalidField(body.say ? 'play' : 'say', 'give exactly one of say and play.', body.say ? 'not_allowed' : 'required');
    // The URL policy first, as POST .../participants does: a refused URL is the answer whatever the conference.
    if (body.play) await assertWebhookUrlAllowed(body.play.url, caller.mode, this.platform.config, 'play.url');
    this.assertOpen(await this.found(caller, id));
    // The audio is fetched before the transaction (never held open across a fetch).
    const prompt: SpeakOp | PlayOp = body.play ? await this.fetchPlay(caller, body.play) : { kind: 'speak', text: body.say!.text, voice: body.say!.voice, language: body.say!.language, loop: body.say!.loop ?? 1 };
    return inTransaction(this.db, async (trx) => {
      const conference = await this.owned(trx, caller, id, true);
      this.assertOpen(conference);
      if (conference.status !== 'in_progress') {
        throw new Problem('conference_not_in_progress', `Conference ${id} is waiting for a start_on_enter participant: its participants hear the wait audio until then, so there is nobody to announce to yet.`);
      }
      const media = this.carriers.forMode(conference.mode).media.conferences;
      await media?.announce(trx, await this.seating.mixOf(trx, conference), prompt);
      return this.seating.present(trx, conference);
    });
  }

  /** An announcement's audio, fetched under the URL policy into the flows' audio cache; 422 on play.url when it cannot be. */
  private async fetchPlay(caller: Caller, play: NonNullable<AnnounceBody['play']>): Promise<PlayOp> {
    const got = await this.audio.fetch(play.url, caller.mode);
    if (!got.ok) throw invalidField('play.url', got.detail);
    return { kind: 'play', url: play.url, path: got.audio.path, seconds: got.audio.seconds, loop: play.loop ?? 1 };
  }

  private assertOpen(conference: ConferenceRow): void {
    if (conference.status === 'completed') {
      throw new Problem('conference_completed', `Conference ${conference.id} ended at ${conference.ended_at}; a conference verb with the name "${conference.name}" makes a new one.`);
    }
  }

  async participants(caller: Caller, id: string, page: PageInput & { status?: 'joined' | 'left' | undefined }): Promise<ConferenceParticipantRow[]> {
    await this.found(caller, id);
    let q = this.db.selectFrom('conference_participants').selectAll().where('conference_id', '=', id);
    if (page.status) q = q.where('status', '=', page.status);
    return fetchPage(q, page);
  }

  async participant(caller: Caller, id: string, callId: string): Promise<Participant> {
    const row = await this.db.selectFrom('conference_participants').selectAll().where('conference_id', '=', id).where('id', '=', callId)
      .where('account_id', '=', caller.account.id).where('mode', '=', caller.mode).executeTakeFirst();
    if (!row) throw notFound('participant', callId);
    return presentParticipant(row);
  }

  /**
   * POST /v1/conferences/{id}/participants: an outbound call whose flow joins this conference
   * when it answers (the same conference verb a flow would run).
   */
  async dialIn(caller: Caller, id: string, input: { to: string; from: string; muted?: boolean | undefined; coach_call_id?: string | undefined; webhook_url?: string | undefined }): Promise<Call> {
    // The URL policy first, as POST /v1/calls does: a refused URL is the answer whatever the conference.
    if (input.webhook_url) await assertWebhookUrlAllowed(input.webhook_url, caller.mode, this.platform.config, 'webhook_url');
    const conference = await this.found(caller, id);
    this.assertOpen(conference);
    return this.calls.create(caller, {
      from: input.from,
      to: input.to,
      webhook_url: input.webhook_url,
      flow: [{ conference: { name: conference.name, muted: input.muted ?? false, ...(input.coach_call_id ? { coach_call_id: input.coach_call_id } : {}) } }],
    });
  }

  /** PATCH /v1/conferences/{id}/participants/{call_id}: mute, hold, coach. */
  async update(caller: Caller, id: string, callId: string, change: ParticipantChange): Promise<Participant> {
    return inTransaction(this.db, async (trx) => {
      const conference = await this.owned(trx, caller, id, true);
      const seats = await this.seating.seated(trx, conference.id);
      const seat = await this.seatOf(trx, conference, seats, callId);
      if (change.coach_call_id != null && (change.coach_call_id === callId || !seats.some((s) => s.id === change.coach_call_id))) {
        throw invalidField('coach_call_id', `must be another participant in conference ${id} now (GET /v1/conferences/${id}/participants?status=joined).`);
      }
      if (change.muted === undefined && change.hold === undefined && change.coach_call_id === undefined) return presentParticipant(seat);
      const now = caller.clock.now().toISOString();
      const changes = {
        ...(change.muted !== undefined ? { muted: change.muted ? 1 : 0 } : {}),
        ...(change.hold !== undefined ? { hold: change.hold ? 1 : 0 } : {}),
        ...(change.coach_call_id !== undefined ? { coach_call_id: change.coach_call_id } : {}),
        updated_at: now,
      };
      await trx.updateTable('conference_participants').set(changes).where('conference_id', '=', conference.id).where('id', '=', callId).execute();
      const next = { ...seat, ...changes };
      const call = await trx.selectFrom('calls').select('webhook_url').where('id', '=', callId).executeTakeFirst();
      await this.seating.emitParticipant(trx, conference, next, 'conference.participant.updated', call?.webhook_url ?? null, caller.clock);
      await this.seating.mixChanged(trx, conference);
      return presentParticipant(next);
    });
  }

  /** DELETE /v1/conferences/{id}/participants/{call_id}: the participant leaves and its flow goes on with its next verb. */
  async remove(caller: Caller, id: string, callId: string): Promise<Participant> {
    return inTransaction(this.db, async (trx) => {
      await this.owned(trx, caller, id, false);
      // The call first, then the conference: the order the conference verb takes them in.
      const call = await this.calls.lock(trx, callId);
      const conference = await this.owned(trx, caller, id, true);
      const seat = await this.seatOf(trx, conference, await this.seating.seated(trx, conference.id), callId);
      const left = await this.seating.unseat(trx, conference, seat, 'removed', call?.webhook_url ?? null, caller.clock);
      if (call) await this.seating.moveOn(trx, call);
      return presentParticipant(left);
    });
  }

  /** `callId`'s seat in the conference now: 404 if it never was in it, 409 if it left. */
  private async seatOf(trx: Trx, conference: ConferenceRow, seats: ConferenceParticipantRow[], callId: string): Promise<ConferenceParticipantRow> {
    const seat = seats.find((s) => s.id === callId);
    if (seat) return seat;
    const past = await trx.selectFrom('conference_participants').select('left_reason').where('conference_id', '=', conference.id).where('id', '=', callId).executeTakeFirst();
    if (!past) throw notFound('participant', callId);
    throw new Problem('participant_not_in_conference', `Call ${callId} left conference ${conference.id} (${past.left_reason}).`);
  }
}
