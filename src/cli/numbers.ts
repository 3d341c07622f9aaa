// `switchboard numbers import`: brings a number the operator already owns on a trunk into
// an account, either straight in (active at once) or into the account's inventory, where
// GET /v1/numbers/available finds it and POST /v1/numbers provisions it.
import { phoneFacts } from '../platform/phone.ts';
import { parse, required, UsageError } from './args.ts';
import { commandUsage } from './usage.ts';
import { withStore } from './store.ts';
import type { Database } from '../store/db.ts';
import { systemClock } from '../platform/clock.ts';
import { EventEmitter } from '../events/emit.ts';
import { JobQueue } from '../jobs/queue.ts';
import { createFanOut } from '../modules/webhooks/fan-out.ts';
import { NumberService, presentNumber } from '../modules/numbers/service.ts';
import { bindingsFrom } from './carrier-bindings.ts';

const CAPABILITIES = ['voice', 'sms', 'mms', 'whatsapp'];
const TYPES = ['local', 'mobile', 'toll_free'] as const;

export async function numbersCommand(argv: string[], out: (s: string) => void): Promise<void> {
  const [sub, ...rest] = argv;
  if (sub === 'bind') return bindCommand(rest, out);
  if (sub !== 'import') throw new UsageError(commandUsage('numbers'));
  const { values } = parse(rest, {
    account: { type: 'string' }, number: { type: 'string' }, mode: { type: 'string' }, capabilities: { type: 'string' },
    type: { type: 'string' }, inventory: { type: 'boolean' }, 'data-dir': { type: 'string' }, json: { type: 'boolean' },
    trunk: { type: 'string' }, 'messaging-carrier': { type: 'string' },
  });
  const mode = (values.mode as string | undefined) ?? 'live';
  if (mode !== 'sandbox' && mode !== 'live') throw new UsageError('--mode must be live or sandbox');
  const bindings = bindingsFrom(values, mode);
  const phone = phoneFacts(required(values, 'number'));
  if (!phone?.possible || !/^\+[1-9]\d{6,14}$/.test(phone.e164)) throw new UsageError('--number must be a phone number in E.164, e.g. +14155550100');
  const capabilities = ((values.capabilities as string | undefined) ?? 'voice,sms,mms').split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = capabilities.find((c) => !CAPABILITIES.includes(c));
  if (unknown !== undefined || capabilities.length === 0) throw new UsageError(`--capabilities takes a comma-separated list of ${CAPABILITIES.join(', ')}`);
  const type = (values.type as string | undefined) ?? 'local';
  if (!(TYPES as readonly string[]).includes(type)) throw new UsageError(`--type must be one of ${TYPES.join(', ')}`);

  const result = await withStore(values['data-dir'] as string | undefined, async (s) => {
    const account = await s.accounts.get(required(values, 'account'));
    const numbers = numberService(s.database);
    return numbers.importNumber(systemClock, {
      accountId: account.id, mode, phoneNumber: phone.e164, capabilities, type: type as (typeof TYPES)[number],
      country: phone.country ?? 'ZZ', inventory: Boolean(values.inventory), ...bindings,
    });
  });
  if (result.number) {
    const number = presentNumber(result.number);
    return out(values.json ? JSON.stringify(number) + '\n' : `${number.id}\t${number.phone_number}\t${number.mode}\t${number.status}\n`);
  }
  return out(values.json ? JSON.stringify({ inventory: result.inventory }) + '\n' : `${result.inventory} added to the ${mode} inventory of ${values.account}\n`);
}

/**
 * number.provisioned and number.updated go through the same outbox as the server's: the
 * event row and its delivery jobs commit with the number, and a running server's worker
 * sends them.
 */
function numberService(database: Database): NumberService {
  const events = new EventEmitter();
  const jobs = new JobQueue(database, systemClock, { concurrency: 1, pollMs: 1000, leaseMs: 30_000, onError: () => {} });
  events.setFanOut(createFanOut({ jobs, clock: systemClock }));
  return new NumberService(database.db, events);
}

/** `switchboard numbers bind num_... --messaging-carrier smsc-eu`: rebinds an existing live number. */
async function bindCommand(argv: string[], out: (s: string) => void): Promise<void> {
  const { values, positionals } = parse(argv, {
    trunk: { type: 'string' }, 'messaging-carrier': { type: 'string' }, 'data-dir': { type: 'string' }, json: { type: 'boolean' },
  });
  const id = positionals[0];
  if (!id?.startsWith('num_')) throw new UsageError(`numbers bind takes the number's id (num_...)\n${commandUsage('numbers')}`);
  if (values.trunk === undefined && values['messaging-carrier'] === undefined) throw new UsageError('numbers bind needs --trunk or --messaging-carrier');
  const row = await withStore(values['data-dir'] as string | undefined, async (s) => {
    const found = await s.database.db.selectFrom('numbers').select(['account_id', 'mode']).where('id', '=', id).executeTakeFirst();
    if (!found) throw new UsageError(`no number ${id}`);
    const bindings = bindingsFrom(values, found.mode);
    return numberService(s.database).update(found.account_id, found.mode, systemClock, id, {
      ...(bindings.voiceTrunk !== undefined ? { voice_trunk: bindings.voiceTrunk } : {}),
      ...(bindings.messagingCarrier !== undefined ? { messaging_carrier: bindings.messagingCarrier } : {}),
    });
  });
  const number = presentNumber(row);
  out(values.json ? JSON.stringify(number) + '\n' : `${number.id}\t${number.phone_number}\ttrunk=${number.voice_trunk ?? '(default)'}\tmessaging=${number.messaging_carrier ?? '(default)'}\n`);
}
