// A conference verb's `wait_url`: when its participant starts waiting (the conference has no
// start_on_enter participant yet), the URL is asked with a signed POST naming the conference
// (a durable job, no transaction held meanwhile), as a queue's wait_url is, and its answer
// (say, play, pause) is what the participant hears, looped, until the conference starts. The
// answer is put in as the verb's wait_flow and the verb's media operation runs with it (its
// play files fetched first, as any wait_flow's). An answer that fails or holds other verbs
// leaves the hold tone. Moves made while the URL is asked win: a participant removed, a
// conference ended, a hang-up or a live update meanwhile end the wait without the answer.
import type { Platform } from '../../platform/context.ts';
import { inTransaction } from '../../store/transaction.ts';
import type { CallService } from '../calls/service.ts';
import type { CallRow } from '../calls/tables.ts';
import type { FlowWebhookClient } from '../calls/flows/flow-webhook.ts';
import { closeEntry, flowLogOf, flowStateOf, saveFlow } from '../calls/flows/state.ts';
import type { FlowRuntime, VerbStep } from '../calls/flows/verbs/verb.ts';
import type { Verb } from '../calls/flows/schema.ts';
import type { ConferenceSeating } from './seating.ts';

const WAIT_URL_JOB = 'conferences.wait_url';

interface WaitUrlStep { callId: string; opId: string; url: string }

/** The verbs a wait_url may answer: what a conference's wait_flow holds. */
const isWaitPrompt = (verb: object) => 'say' in verb || 'play' in verb || 'pause' in verb;

export class ConferenceWaitUrls {
  constructor(
    private readonly platform: Platform,
    private readonly calls: CallService,
    private readonly seating: ConferenceSeating,
    private readonly webhooks: FlowWebhookClient,
    private readonly flow: () => FlowRuntime,
  ) {
    platform.jobs.register<WaitUrlStep>(WAIT_URL_JOB, (step) => this.ask(step), { maxAttempts: 1 });
  }

  private get db() {
    return this.platform.database.db;
  }

  /** FlowConferences.askWaitUrl: in the verb's transaction, the call just seated. */
  async start({ trx, call, state, log }: VerbStep, url: string, opId: string): Promise<boolean> {
    const conferenceId = await this.seating.seatedIn(trx, call.id);
    const conference = conferenceId ? await trx.selectFrom('conferences').select('status').where('id', '=', conferenceId).executeTakeFirst() : undefined;
    if (conference?.status !== 'waiting') return false;
    // `loading`, as while a play's audio is fetched: a live update meanwhile leaves the wait behind (ask() frees the seat).
    await saveFlow(trx, call, { ...state, op: opId, seq: state.seq + 1, loading: true }, log);
    await this.platform.jobs.enqueue(trx, WAIT_URL_JOB, { callId: call.id, opId, url } satisfies WaitUrlStep, {
      clockId: call.mode === 'sandbox' ? call.account_id : null,
    });
    return true;
  }

  /** What the wait_url answers (say, play, pause), or null when it failed or answered other verbs. */
  private async waitFlowOf(url: string, call: CallRow, seat: { id: string; name: string; status: string }): Promise<Verb[] | null> {
    const { count } = await this.db.selectFrom('conference_participants').select((eb) => eb.fn.countAll<number>().as('count'))
      .where('conference_id', '=', seat.id).where('status', '=', 'joined').executeTakeFirstOrThrow();
    const opId = flowStateOf(call)?.op ?? '';
    const answer = await this.webhooks.fetch(url, call.account_id, call.mode, `confwait_${opId.replace(':', '_')}`, {
      object: 'conference_wait_request', call_id: call.id,
      conference: { id: seat.id, name: seat.name, status: seat.status, participant_count: Number(count) },
    });
    return answer.ok && answer.verbs.every(isWaitPrompt) ? answer.verbs : null;
  }

  private async ask({ callId, opId, url }: WaitUrlStep): Promise<void> {
    const before = await this.db.selectFrom('calls').selectAll().where('id', '=', callId).executeTakeFirst();
    if (!before || before.status !== 'in_progress') return;
    const seat = await this.db.selectFrom('conference_participants as p').innerJoin('conferences as c', 'c.id', 'p.conference_id')
      .select(['c.id', 'c.name', 'c.status']).where('p.id', '=', callId).where('p.status', '=', 'joined').executeTakeFirst();
    // Not seated any more (removed, or the conference ended, before this ran): nothing to ask; the flow goes on below.
    const prompts = seat ? await this.waitFlowOf(url, before, seat) : null;
    await inTransaction(this.db, async (trx) => {
      const call = await this.calls.lock(trx, callId);
      const state = call ? flowStateOf(call) : null;
      if (!call || !state || call.status !== 'in_progress') return;
      const clock = await this.platform.sandboxClocks.clockFor(call.account_id, call.mode, trx);
      if (state.op !== opId) {
        // A live update replaced the flow while the URL was asked: the seat goes with the old flow
        // (unless the new one is in a conference verb already, which holds its own seat).
        if (!state.verbs[state.pc] || !('conference' in state.verbs[state.pc]!)) await this.seating.leave(trx, call, 'flow_updated', clock);
        return;
      }
      const log = flowLogOf(call);
      const flow = this.flow();
      const conferenceId = await this.seating.seatedIn(trx, call.id);
      if (conferenceId === null) {
        // Removed, or its conference ended, while the URL was asked: the flow goes on.
        closeEntry(log, clock.now().toISOString(), { conference_id: seat?.id ?? null, reason: 'left' });
        return flow.advance(trx, call, { ...state, op: null, pc: state.pc + 1 }, log, clock);
      }
      if (!prompts) this.platform.log.warn({ call: callId, url }, 'conferences: the wait_url gave no wait flow (say, play, pause); the participant hears the hold tone');
      const { conference: body } = state.verbs[state.pc] as Extract<Verb, { conference: unknown }>;
      const { wait_url: _asked, ...rest } = body;
      const verbs = state.verbs.map((verb, i) => (i === state.pc ? { conference: prompts ? { ...rest, wait_flow: prompts as typeof rest.wait_flow } : rest } : verb));
      await flow.runMedia({ trx, call, state: { ...state, verbs, op: null, loading: false }, log, clock, now: clock.now().toISOString() });
    });
  }
}
