// The simulator's conferences: each sandbox conference's timeline (who was seated how, who
// said what, announcements, its recording's span) in its own row of sim_conferences, in
// conference seconds on the account's test clock. Nothing is mixed while the calls run: a
// recording (the conference's, or a participant call's) is rendered when it stops, from the
// timeline (conference-mix.ts), exactly like the simulator's other recordings.
import type { Platform } from '../../platform/context.ts';
import type { Trx } from '../../store/transaction.ts';
import { inTransaction } from '../../store/transaction.ts';
import type { CallRef } from '../../telephony/call-ref.ts';
import { connectionMixId, type ConferenceMix, type ConferenceSeat } from '../../telephony/conference.ts';
import type { PlayOp, PromptOp, RecordingFormat, SpeakOp } from '../../telephony/media-ops.ts';
import type { CallChannel, TranscriptSegment } from '../../telephony/transcript.ts';
import type { ConferenceMedia, RecordingSinks } from '../media-port.ts';
import { heardBy, shiftSound, type SimConferenceState } from './conference-mix.ts';
import { addSound, promptSound, soundOfSpans, type CallSound } from './flow-sound.ts';
import { streamRecording } from './recording-stream.ts';
import { toneFiles } from './tones.ts';

const RENDER_JOB = 'simulator.conference_render';
const RENDER_ATTEMPTS = 5;

interface RenderStep {
  conferenceId: string;
  accountId: string;
  recordingId: string;
  generation: number;
  fromFrame: number;
}

/** A call's stay in a conference, kept in its SimState: how its talk seconds map to the conference's. */
export interface ConferenceStay {
  conferenceId: string;
  /** Talk seconds of the call when it joined, and the conference's seconds at that instant. */
  talkAt: number;
  conferenceAt: number;
}

const round3 = (s: number) => Math.round(s * 1000) / 1000;

/** A seat heard by everyone and hearing everyone, with no beep (a connection's two calls). */
const plainSeat = (callId: string): ConferenceSeat => ({ callId, muted: false, hold: false, coachOf: null, beep: false });

export class SimulatedConferenceMedia implements ConferenceMedia {
  constructor(private readonly platform: Platform, private readonly sinks: () => RecordingSinks) {
    platform.jobs.register<RenderStep>(RENDER_JOB, (step, ctx) => this.render(step, ctx.attempt), { maxAttempts: RENDER_ATTEMPTS });
  }

  /** The conference's timeline, locked for the rest of `trx` (created at its first change). */
  private async load(trx: Trx, conferenceId: string): Promise<SimConferenceState | undefined> {
    let q = trx.selectFrom('sim_conferences').select('state').where('id', '=', conferenceId);
    if (this.platform.database.engine === 'postgres') q = q.forUpdate();
    const row = await q.executeTakeFirst();
    return row ? JSON.parse(row.state) as SimConferenceState : undefined;
  }

  private async save(trx: Trx, conferenceId: string, accountId: string, state: SimConferenceState, created: boolean): Promise<void> {
    const values = { state: JSON.stringify(state), updated_at: new Date().toISOString() };
    if (created) await trx.insertInto('sim_conferences').values({ id: conferenceId, account_id: accountId, ...values }).execute();
    else await trx.updateTable('sim_conferences').set(values).where('id', '=', conferenceId).execute();
  }

  /** Seconds since the conference's second 0, on the account's test clock (the simulator's scale). */
  private async secondsOf(trx: Trx, accountId: string, mode: CallRef['mode'], state: Pick<SimConferenceState, 'startedAt'>): Promise<number> {
    const clock = await this.platform.sandboxClocks.clockFor(accountId, mode, trx);
    const ms = clock.now().getTime() - Date.parse(state.startedAt);
    return Math.max(0, Math.round(ms / this.platform.config.simTimeScale) / 1000);
  }

  /** Runs `change` on the timeline of `mix`'s conference (made on its first change) and saves it. */
  private async change(trx: Trx, mix: Pick<ConferenceMix, 'conferenceId' | 'accountId' | 'mode'>, change: (state: SimConferenceState, now: number) => void): Promise<void> {
    let state = await this.load(trx, mix.conferenceId);
    const created = !state;
    if (!state) {
      const clock = await this.platform.sandboxClocks.clockFor(mix.accountId, mix.mode, trx);
      state = { startedAt: clock.now().toISOString(), epochs: [], said: [], announced: [], waits: {}, captures: {} };
    }
    change(state, await this.secondsOf(trx, mix.accountId, mix.mode, state));
    await this.save(trx, mix.conferenceId, mix.accountId, state, created);
  }

  async mixChanged(trx: Trx, mix: ConferenceMix): Promise<void> {
    await this.change(trx, mix, (state, now) => {
      // Two changes at one instant: the later one is what holds from it.
      if (state.epochs.at(-1)?.at === now) state.epochs.pop();
      state.epochs.push({ at: now, status: mix.status, seats: mix.seats });
    });
  }

  async announce(trx: Trx, mix: ConferenceMix, prompt: SpeakOp | PlayOp): Promise<void> {
    await this.change(trx, mix, (state, now) => {
      const sound = promptSound([prompt], now, 0);
      state.announced.push(...sound.segments);
      if (sound.plays.length > 0) state.announcedPlays = [...(state.announcedPlays ?? []), ...sound.plays];
    });
  }

  async startCapture(trx: Trx, mix: ConferenceMix, recordingId: string, format: RecordingFormat): Promise<void> {
    await this.change(trx, mix, (state, now) => {
      state.captures[recordingId] = { format, start: now, end: null, generation: (state.captures[recordingId]?.generation ?? 0) };
    });
  }

  async stopCapture(trx: Trx, mix: ConferenceMix, recordingId: string): Promise<void> {
    let generation = -1;
    await this.change(trx, mix, (state, now) => {
      const capture = state.captures[recordingId];
      if (!capture || capture.end !== null) return;
      capture.end = Math.max(capture.start, now);
      generation = capture.generation += 1;
    });
    if (generation < 0) return;
    const step: RenderStep = { conferenceId: mix.conferenceId, accountId: mix.accountId, recordingId, generation, fromFrame: 0 };
    await this.platform.jobs.enqueue(trx, RENDER_JOB, step, { clockId: mix.mode === 'sandbox' ? mix.accountId : null });
  }

  /**
   * A call starts its conference operation at `talkAt`: it waits with `wait` until the
   * conference starts. Returns its stay, which the call's state keeps.
   */
  async joined(trx: Trx, call: CallRef, conferenceId: string, wait: PromptOp[] | null, talkAt: number): Promise<ConferenceStay> {
    let conferenceAt = 0;
    await this.change(trx, { conferenceId, accountId: call.account_id, mode: call.mode }, (state, now) => {
      state.waits[call.id] = wait;
      conferenceAt = now;
    });
    return { conferenceId, talkAt, conferenceAt };
  }

  /**
   * `call` starts a connect operation to `peerCallId` at `talkAt`: the two are the seats of the
   * connection's mix (telephony/conference.ts connectionMixId), each hearing the other, until a
   * monitor's mix (mixChanged) seats a supervisor beside them. Returns the call's stay there.
   */
  async connected(trx: Trx, call: CallRef, peerCallId: string, talkAt: number): Promise<ConferenceStay> {
    const conferenceId = connectionMixId(call.id, peerCallId);
    let conferenceAt = 0;
    await this.change(trx, { conferenceId, accountId: call.account_id, mode: call.mode }, (state, now) => {
      state.waits[call.id] = null;
      conferenceAt = now;
      const last = state.epochs.at(-1);
      if (last?.status === 'in_progress' && last.seats.some((s) => s.callId === call.id)) return;
      const others = (last?.status === 'in_progress' ? last.seats : []).filter((s) => s.callId !== call.id && s.callId !== peerCallId);
      const seats = [...others, plainSeat(call.id), plainSeat(peerCallId)];
      if (last?.at === now) state.epochs.pop();
      state.epochs.push({ at: now, status: 'in_progress', seats });
    });
    return { conferenceId, talkAt, conferenceAt };
  }

  /** `call`'s connect operation ended: it is no longer heard nor hears on the connection's mix. */
  async disconnected(trx: Trx, call: CallRef, stay: ConferenceStay): Promise<void> {
    await this.change(trx, { conferenceId: stay.conferenceId, accountId: call.account_id, mode: call.mode }, (state, now) => {
      const last = state.epochs.at(-1);
      if (!last || last.status !== 'in_progress' || !last.seats.some((s) => s.callId === call.id)) return;
      const seats = last.seats.filter((s) => s.callId !== call.id);
      if (last.at === now) state.epochs.pop();
      state.epochs.push({ at: now, status: 'in_progress', seats });
    });
  }

  /** A participant said `segment` (in its talk seconds, during `stay`): the conference hears it as the rule says. */
  async said(trx: Trx, call: CallRef, stay: ConferenceStay, segment: TranscriptSegment): Promise<void> {
    await this.change(trx, { conferenceId: stay.conferenceId, accountId: call.account_id, mode: call.mode }, (state) => {
      const shift = stay.conferenceAt - stay.talkAt;
      const words = segment.words.map((w) => ({ ...w, start: round3(w.start + shift), end: round3(w.end + shift) }));
      state.said.push({ callId: call.id, segment: { ...segment, start: words[0]!.start, end: words.at(-1)!.end, words } });
    });
  }

  /** What `call` heard in its conferences, in its talk seconds, on `channel` (its flow's side), until talk second `until`. */
  async heardOnCall(call: CallRef, stays: readonly ConferenceStay[], channel: CallChannel, until: number): Promise<CallSound> {
    const tones = await toneFiles(this.platform.config.dataDir);
    let sound: CallSound = { segments: [], plays: [] };
    for (const stay of stays) {
      const row = await this.platform.database.db.selectFrom('sim_conferences').select('state').where('id', '=', stay.conferenceId).executeTakeFirst();
      if (!row) continue;
      const state = JSON.parse(row.state) as SimConferenceState;
      const shift = stay.talkAt - stay.conferenceAt;
      const heard = heardBy(state, call.id, until - shift, channel, tones);
      sound = addSound(sound, shiftSound(heard, shift, stay.conferenceAt, until - shift));
    }
    return sound;
  }

  /** One render job of a conference recording: what the room heard in its span. */
  private async render(step: RenderStep, attempt: number): Promise<void> {
    const row = await this.platform.database.db.selectFrom('sim_conferences').select('state').where('id', '=', step.conferenceId).executeTakeFirst();
    if (!row) return;
    const state = JSON.parse(row.state) as SimConferenceState;
    const capture = state.captures[step.recordingId];
    if (!capture || capture.generation !== step.generation || capture.end === null) return;
    const tones = await toneFiles(this.platform.config.dataDir);
    const { transcript, plays, durationSeconds } = soundOfSpans(heardBy(state, null, capture.end, 0, tones), [{ start: capture.start, end: capture.end }]);
    const next = await streamRecording(this.sinks(), {
      accountId: step.accountId, recordingId: step.recordingId, format: capture.format, transcript, plays, durationSeconds, transcribe: true,
    }, step.fromFrame, attempt >= RENDER_ATTEMPTS);
    if (next === null) return;
    await inTransaction(this.platform.database.db, (trx) => this.platform.jobs.enqueue(trx, RENDER_JOB, { ...step, fromFrame: next } satisfies RenderStep, {
      clockId: step.accountId,
    }));
  }
}
