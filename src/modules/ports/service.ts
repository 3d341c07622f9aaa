// Port-in orders. Creating one puts each number on the order (status `porting`) and gives
// it a temporary number at once (active, same capabilities), so the account works from
// the first minute. The losing carrier's answers and the FOC cut-over are durable jobs on
// the account's sandbox test clock. On completion the ported numbers become active and
// `number.ported` fires for each; temporary numbers stay until the customer releases them.
import { failure } from '../../platform/failure.ts';
import { phoneNumberMessage } from '../../platform/field-errors.ts';
import { fetchPage } from '../../platform/pagination.ts';
import type { Kysely } from 'kysely';
import { phoneFacts } from '../../platform/phone.ts';
import type { Tables } from '../../store/tables.ts';
import type { Mode, NumberRow } from '../../store/platform-tables.ts';
import type { Platform } from '../../platform/context.ts';
import type { Clock } from '../../platform/clock.ts';
import type { EventEmitter } from '../../events/emit.ts';
import { newId } from '../../platform/ids.ts';
import { Problem, invalidField, notFound } from '../../platform/problems.ts';
import { inTransaction, type Trx } from '../../store/transaction.ts';
import { US_FEDERAL_HOLIDAYS_2026_2027 } from '../../telephony/business-days.ts';
import type { NumberService } from '../numbers/service.ts';
import type { SandboxNetwork } from '../../carriers/index.ts';
import type { PortRow } from './tables.ts';
import { CANCEL_CUTOFF_HOURS, PORT_MACHINE, STATE_EVENTS, type PortStatus } from './states.ts';
import { lockUntilCommit } from '../../store/locks.ts';
import { assertWebhookUrlAllowed } from '../webhooks/url-policy.ts';

export const PORT_REVIEW_JOB = 'ports.review';
export const PORT_COMPLETE_JOB = 'ports.complete';

const DEFAULT_CAPABILITIES = ['voice', 'sms', 'mms'];

export interface ServiceAddress { street: string; city: string; region: string; postal_code: string; country: string }

export interface CreatePortInput {
  phone_numbers: string[];
  losing_carrier: string;
  account_number: string;
  pin: string;
  authorized_name: string;
  service_address: ServiceAddress;
  capabilities?: string[] | undefined;
  webhook_url?: string | undefined;
}

export type UpdatePortInput = Partial<Pick<CreatePortInput, 'losing_carrier' | 'account_number' | 'pin' | 'authorized_name' | 'service_address'>>;

/** A port in exception says what to fix; a rejected one why the losing carrier refused it. */
function portFailure(row: PortRow) {
  if (row.status === 'exception' && row.exception_code) return failure(row.exception_code, row.exception_detail ?? row.exception_code);
  if (row.status === 'rejected') return failure('rejected_by_losing_carrier', row.rejection_reason ?? 'The losing carrier rejected the order.');
  return null;
}

export function presentPort(row: PortRow, numbers: NumberRow[]) {
  const ported = numbers.filter((n) => n.temporary === 0);
  const temporary = numbers.filter((n) => n.temporary === 1);
  const phones: string[] = JSON.parse(row.phone_numbers);
  return {
    id: row.id,
    object: 'port' as const,
    mode: row.mode,
    status: row.status,
    phone_numbers: phones.map((phone) => {
      const number = ported.find((n) => n.phone_number === phone)!;
      const temp = temporary.find((n) => n.temporary_for === phone);
      return {
        phone_number: phone,
        number_id: number.id,
        status: number.status,
        temporary_number: temp ? { id: temp.id, phone_number: temp.phone_number } : null,
      };
    }),
    capabilities: JSON.parse(ported[0]?.capabilities ?? '[]'),
    losing_carrier: row.losing_carrier,
    account_number: row.account_number,
    authorized_name: row.authorized_name,
    service_address: JSON.parse(row.service_address) as ServiceAddress,
    webhook_url: row.webhook_url,
    foc_date: row.foc_date,
    exception: row.exception_code ? { code: row.exception_code, detail: row.exception_detail ?? '' } : null,
    rejection_reason: row.rejection_reason,
    failure: portFailure(row),
    submitted_at: row.submitted_at,
    foc_scheduled_at: row.foc_scheduled_at,
    completed_at: row.completed_at,
    canceled_at: row.canceled_at,
    rejected_at: row.rejected_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export class PortService {
  private readonly db: Kysely<Tables>;
  /** Non-business days for FOC dates: US federal holidays plus SWITCHBOARD_HOLIDAYS. */
  readonly holidays: string[];

  constructor(
    private readonly platform: Platform,
    private readonly events: EventEmitter,
    private readonly numbers: NumberService,
    /** The simulated losing carrier reviews sandbox orders. */
    private readonly sandbox: SandboxNetwork,
  ) {
    this.db = platform.database.db;
    this.holidays = [...US_FEDERAL_HOLIDAYS_2026_2027, ...platform.config.holidays];
  }

  async create(accountId: string, mode: Mode, clock: Clock, input: CreatePortInput): Promise<ReturnType<typeof presentPort>> {
    input.phone_numbers.forEach((phone, i) => {
      if (!phoneFacts(phone)?.possible) throw invalidField(`phone_numbers.${i}`, phoneNumberMessage(phone), 'invalid_phone_number');
    });
    if (input.webhook_url !== undefined) await assertWebhookUrlAllowed(input.webhook_url, mode, this.platform.config, 'webhook_url');
    if (mode === 'live') {
      throw new Problem('carrier_not_configured', 'Porting in live mode needs a real carrier, and none is configured on this server, so nothing was written. '
        + 'Retrying will not help: use a sandbox key to try porting.');
    }
    const capabilities = input.capabilities ?? DEFAULT_CAPABILITIES;
    return inTransaction(this.db, async (trx) => {
      // Checks and picks of free numbers take turns (PostgreSQL), so concurrent orders never pick the same one.
      await lockUntilCommit(trx, `numbers:${mode}`);
      const held = await trx.selectFrom('numbers').select('phone_number')
        .where('mode', '=', mode).where('status', '!=', 'released').where('phone_number', 'in', input.phone_numbers).execute();
      if (held.length > 0) {
        throw new Problem('number_not_available', `${held.map((h) => h.phone_number).join(', ')} ${held.length === 1 ? 'is' : 'are'} already on Switchboard in ${mode} mode.`);
      }
      const now = clock.now().toISOString();
      const row: PortRow = {
        id: newId('port'),
        account_id: accountId,
        mode,
        status: 'submitted',
        phone_numbers: JSON.stringify(input.phone_numbers),
        losing_carrier: input.losing_carrier,
        account_number: input.account_number,
        pin: input.pin,
        authorized_name: input.authorized_name,
        service_address: JSON.stringify(input.service_address),
        webhook_url: input.webhook_url ?? null,
        foc_date: null,
        exception_code: null,
        exception_detail: null,
        rejection_reason: null,
        submitted_at: now,
        foc_scheduled_at: null,
        completed_at: null,
        canceled_at: null,
        rejected_at: null,
        created_at: now,
        updated_at: now,
      };
      await trx.insertInto('ports').values(row).execute();
      const numberRows: NumberRow[] = [];
      for (const phone of input.phone_numbers) {
        numberRows.push(await this.numbers.create(trx, accountId, mode, clock, {
          phone_number: phone, country: countryOf(phone), type: 'local', capabilities, status: 'porting', port_id: row.id,
        }));
        const [free] = await this.numbers.searchAvailable(accountId, mode, { areaCode: sandboxAreaCode(phone) }, 1, trx)
          .then((found) => (found.length > 0 ? found : this.numbers.searchAvailable(accountId, mode, {}, 1, trx)));
        if (!free) throw new Error('the sandbox number inventory is exhausted');
        numberRows.push(await this.numbers.create(trx, accountId, mode, clock, {
          phone_number: free.phone_number, country: free.country, type: free.type, capabilities, status: 'active',
          temporary: true, temporary_for: phone, port_id: row.id, webhook_url: row.webhook_url,
        }));
      }
      await this.emit(trx, row, numberRows, clock);
      await this.scheduleReview(trx, row);
      return presentPort(row, numberRows);
    });
  }

  async get(accountId: string, mode: Mode, id: string): Promise<ReturnType<typeof presentPort>> {
    const row = await this.row(this.db, accountId, mode, id);
    return presentPort(row, await this.numbersOf(this.db, [row.id]));
  }

  async list(accountId: string, mode: Mode, q: { limit: number; startingAfter?: string | undefined; status?: PortStatus | undefined }) {
    let query = this.db.selectFrom('ports').selectAll().where('account_id', '=', accountId).where('mode', '=', mode);
    if (q.status) query = query.where('status', '=', q.status);
    const rows = await fetchPage(query, q);
    const numbers = await this.numbersOf(this.db, rows.map((r) => r.id));
    return { rows, present: (row: PortRow) => presentPort(row, numbers.filter((n) => n.port_id === row.id)) };
  }

  /** Fixes an order in `exception` and resubmits it: exception -> submitted, reviewed again. */
  async update(accountId: string, mode: Mode, clock: Clock, id: string, patch: UpdatePortInput) {
    return inTransaction(this.db, async (trx) => {
      const row = await this.row(trx, accountId, mode, id, true);
      if (row.status !== 'exception') {
        throw new Problem('invalid_state_transition', `Port ${id} is ${row.status}; only an order in exception can be changed and resubmitted.`);
      }
      const fields: Partial<PortRow> = { exception_code: null, exception_detail: null };
      if (patch.losing_carrier !== undefined) fields.losing_carrier = patch.losing_carrier;
      if (patch.account_number !== undefined) fields.account_number = patch.account_number;
      if (patch.pin !== undefined) fields.pin = patch.pin;
      if (patch.authorized_name !== undefined) fields.authorized_name = patch.authorized_name;
      if (patch.service_address !== undefined) fields.service_address = JSON.stringify(patch.service_address);
      const moved = await this.transition(trx, row, 'submitted', clock, fields);
      await this.scheduleReview(trx, moved);
      return presentPort(moved, await this.numbersOf(trx, [id]));
    });
  }

  /** Refused within 48 h of the FOC date; the numbers on the order are released, temporary ones stay. */
  async cancel(accountId: string, mode: Mode, clock: Clock, id: string) {
    return inTransaction(this.db, async (trx) => {
      const row = await this.row(trx, accountId, mode, id, true);
      if (row.status === 'canceled') return presentPort(row, await this.numbersOf(trx, [id]));
      if (row.status === 'foc_scheduled' && row.foc_date !== null) {
        const cutoff = Date.parse(row.foc_date) - CANCEL_CUTOFF_HOURS * 3_600_000;
        if (clock.now().getTime() >= cutoff) {
          throw new Problem('port_cancel_too_late', `Port ${id} moves at ${row.foc_date}; it can no longer be canceled within ${CANCEL_CUTOFF_HOURS} hours of its FOC date.`);
        }
      }
      const moved = await this.transition(trx, row, 'canceled', clock, {});
      return presentPort(moved, await this.releaseNumbersOnOrder(trx, moved, clock));
    });
  }

  /** Job: the (simulated) losing carrier answers a submission. */
  async review(payload: { portId: string; submittedAt: string }): Promise<void> {
    const { portId } = payload;
    const head = await this.db.selectFrom('ports').select(['account_id', 'mode']).where('id', '=', portId).executeTakeFirst();
    if (!head) return;
    await inTransaction(this.db, async (trx) => {
      // Read under the clock's lock: the FOC job is scheduled at an absolute sandbox time.
      const clock = await this.platform.sandboxClocks.lockedClockFor(trx, head.account_id, head.mode);
      const row = await this.row(trx, head.account_id, head.mode, portId, true);
      // Already answered, canceled, or resubmitted since this job was scheduled.
      if (row.status !== 'submitted' || row.submitted_at !== payload.submittedAt) return;
      const answer = this.sandbox.reviewPort({ id: row.id, accountNumber: row.account_number, pin: row.pin, submittedAt: new Date(row.submitted_at) }, this.holidays);
      if (answer.outcome === 'exception') {
        await this.transition(trx, row, 'exception', clock, { exception_code: answer.code, exception_detail: answer.detail });
      } else if (answer.outcome === 'rejected') {
        const moved = await this.transition(trx, row, 'rejected', clock, { rejection_reason: answer.reason });
        await this.releaseNumbersOnOrder(trx, moved, clock);
      } else {
        const focDate = answer.focDate.toISOString();
        await this.transition(trx, row, 'foc_scheduled', clock, { foc_date: focDate });
        const delaySeconds = Math.max(0, (answer.focDate.getTime() - clock.now().getTime()) / 1000);
        await this.platform.jobs.enqueue(trx, PORT_COMPLETE_JOB, { portId: row.id, focDate }, { delaySeconds, clockId: clockIdOf(row) });
      }
    });
  }

  /** Job at the FOC date: the numbers move; each becomes active and fires `number.ported`. */
  async complete(payload: { portId: string; focDate: string }): Promise<void> {
    const head = await this.db.selectFrom('ports').select(['account_id', 'mode']).where('id', '=', payload.portId).executeTakeFirst();
    if (!head) return;
    const clock = await this.platform.sandboxClocks.clockFor(head.account_id, head.mode);
    await inTransaction(this.db, async (trx) => {
      const row = await this.row(trx, head.account_id, head.mode, payload.portId, true);
      if (row.status !== 'foc_scheduled' || row.foc_date !== payload.focDate) return;
      const moved = await this.transition(trx, row, 'completed', clock, {});
      for (const number of await this.numbersOf(trx, [row.id])) {
        if (number.temporary === 0 && number.status === 'porting') {
          await this.numbers.transition(trx, number, 'active', clock, moved.webhook_url ?? number.webhook_url);
        }
      }
    });
  }

  private async releaseNumbersOnOrder(trx: Trx, row: PortRow, clock: Clock): Promise<NumberRow[]> {
    const out: NumberRow[] = [];
    for (const number of await this.numbersOf(trx, [row.id])) {
      out.push(number.temporary === 0 && number.status === 'porting'
        ? await this.numbers.transition(trx, number, 'released', clock, row.webhook_url ?? number.webhook_url)
        : number);
    }
    return out;
  }

  private async scheduleReview(trx: Trx, row: PortRow): Promise<void> {
    await this.platform.jobs.enqueue(trx, PORT_REVIEW_JOB, { portId: row.id, submittedAt: row.submitted_at }, {
      delaySeconds: this.sandbox.portReviewSeconds * this.platform.config.simTimeScale,
      clockId: clockIdOf(row),
    });
  }

  /**
   * The one way an order changes state: PORT_MACHINE checks the move, stamps the state's time
   * and updates the row only if it is still in the state we read; then `number.port.<status>`.
   */
  private async transition(trx: Trx, row: PortRow, to: PortStatus, clock: Clock, fields: Partial<PortRow>): Promise<PortRow> {
    const moved = await PORT_MACHINE.move(trx, row, to, { now: clock.now().toISOString(), set: fields });
    await this.emit(trx, moved, await this.numbersOf(trx, [row.id]), clock);
    return moved;
  }

  private emit(trx: Trx, row: PortRow, numbers: NumberRow[], clock: Clock) {
    return this.events.emit(trx, {
      accountId: row.account_id, mode: row.mode, type: STATE_EVENTS[row.status], resourceType: 'port', resourceId: row.id,
      object: presentPort(row, numbers), webhookUrl: row.webhook_url, clock,
    });
  }

  /**
   * The order as it is now. Inside a transaction that moves it (`lock`), PostgreSQL holds the row
   * until the commit: a cancel and the review job that answers the same order then run one after
   * the other, and the second sees the first's status instead of failing its move with a conflict.
   */
  private async row(db: Kysely<Tables>, accountId: string, mode: Mode, id: string, lock = false): Promise<PortRow> {
    let query = db.selectFrom('ports').selectAll()
      .where('id', '=', id).where('account_id', '=', accountId).where('mode', '=', mode);
    if (lock && this.platform.database.engine === 'postgres') query = query.forUpdate();
    const row = await query.executeTakeFirst();
    if (!row) throw notFound('port', id);
    return row;
  }

  private async numbersOf(db: Kysely<Tables>, portIds: string[]): Promise<NumberRow[]> {
    if (portIds.length === 0) return [];
    return db.selectFrom('numbers').selectAll().where('port_id', 'in', portIds).orderBy('id').execute();
  }
}

function clockIdOf(row: { account_id: string; mode: Mode }): string | null {
  return row.mode === 'sandbox' ? row.account_id : null;
}

function countryOf(phone: string): string {
  return phoneFacts(phone)?.country ?? 'ZZ';
}

/** The area code to look for a temporary number in: the ported number's own, when it is NANP. */
function sandboxAreaCode(phone: string): string | undefined {
  return phone.startsWith('+1') && phone.length === 12 ? phone.slice(2, 5) : undefined;
}
