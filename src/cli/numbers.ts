// `switchboard numbers import`: brings a number the operator already owns on a trunk into
// an account, either straight in (active at once) or into the account's inventory, where
// GET /v1/numbers/available finds it and POST /v1/numbers provisions it.
import { phoneFacts } from '../platform/phone.ts';
import { parse, required, UsageError } from './args.ts';
import { withStore } from './store.ts';
import { systemClock } from '../platform/clock.ts';
import { EventEmitter } from '../events/emit.ts';
import { JobQueue } from '../jobs/queue.ts';
import { createFanOut } from '../modules/webhooks/fan-out.ts';
import { NumberService, presentNumber } from '../modules/numbers/service.ts';

export const NUMBERS_USAGE = `switchboard numbers import --account acct_... --number +1... [--mode live|sandbox] [--capabilities voice,sms,mms,whatsapp] [--type local|mobile|toll_free] [--inventory] [--json]`;

const CAPABILITIES = ['voice', 'sms', 'mms', 'whatsapp'];
const TYPES = ['local', 'mobile', 'toll_free'] as const;

export async function numbersCommand(argv: string[], out: (s: string) => void): Promise<void> {
  const [sub, ...rest] = argv;
  if (sub !== 'import') throw new UsageError(NUMBERS_USAGE);
  const { values } = parse(rest, {
    account: { type: 'string' }, number: { type: 'string' }, mode: { type: 'string' }, capabilities: { type: 'string' },
    type: { type: 'string' }, inventory: { type: 'boolean' }, 'data-dir': { type: 'string' }, json: { type: 'boolean' },
  });
  const mode = (values.mode as string | undefined) ?? 'live';
  if (mode !== 'sandbox' && mode !== 'live') throw new UsageError('--mode must be live or sandbox');
  const phone = phoneFacts(required(values, 'number'));
  if (!phone?.possible || !/^\+[1-9]\d{6,14}$/.test(phone.e164)) throw new UsageError('--number must be a phone number in E.164, e.g. +14155550100');
  const capabilities = ((values.capabilities as string | undefined) ?? 'voice,sms,mms').split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = capabilities.find((c) => !CAPABILITIES.includes(c));
  if (unknown !== undefined || capabilities.length === 0) throw new UsageError(`--capabilities takes a comma-separated list of ${CAPABILITIES.join(', ')}`);
  const type = (values.type as string | undefined) ?? 'local';
  if (!(TYPES as readonly string[]).includes(type)) throw new UsageError(`--type must be one of ${TYPES.join(', ')}`);

  const result = await withStore(values['data-dir'] as string | undefined, async (s) => {
    const account = await s.accounts.get(required(values, 'account'));
    // number.provisioned goes through the same outbox as the server's: the event row and
    // its delivery jobs commit with the number, and a running server's worker sends them.
    const events = new EventEmitter();
    const jobs = new JobQueue(s.database, systemClock, { concurrency: 1, pollMs: 1000, leaseMs: 30_000, onError: () => {} });
    events.setFanOut(createFanOut({ jobs, clock: systemClock }));
    const numbers = new NumberService(s.database.db, events);
    return numbers.importNumber(systemClock, {
      accountId: account.id, mode, phoneNumber: phone.e164, capabilities, type: type as (typeof TYPES)[number],
      country: phone.country ?? 'ZZ', inventory: Boolean(values.inventory),
    });
  });
  if (result.number) {
    const number = presentNumber(result.number);
    return out(values.json ? JSON.stringify(number) + '\n' : `${number.id}\t${number.phone_number}\t${number.mode}\t${number.status}\n`);
  }
  return out(values.json ? JSON.stringify({ inventory: result.inventory }) + '\n' : `${result.inventory} added to the ${mode} inventory of ${values.account}\n`);
}
