import { integer, parse, required, UsageError } from './args.ts';
import { commandUsage } from './usage.ts';
import { withStore } from './store.ts';
import { isPlanName, PLAN_NAMES } from '../modules/accounts/plans.ts';
import { presentAccount } from '../modules/accounts/service.ts';

function plan(value: unknown) {
  if (typeof value !== 'string' || !isPlanName(value)) throw new UsageError(`--plan must be one of ${PLAN_NAMES.join(', ')}`);
  return value;
}

export async function accountsCommand(argv: string[], out: (s: string) => void): Promise<void> {
  const [sub, ...rest] = argv;
  const { values, positionals } = parse(rest, {
    plan: { type: 'string' }, name: { type: 'string' }, 'data-dir': { type: 'string' }, json: { type: 'boolean' },
    'rate-limit': { type: 'string' }, 'concurrent-calls': { type: 'string' }, 'trial-ends-at': { type: 'string' },
  });
  const dataDir = values['data-dir'] as string | undefined;
  const json = Boolean(values.json);

  if (sub === 'create') {
    const created = await withStore(dataDir, (s) => s.accounts.create({ plan: plan(values.plan), name: values.name as string | undefined }));
    if (json) return out(JSON.stringify(created) + '\n');
    return out(`account ${created.account.id} (${created.account.plan})\nsandbox key ${created.keys.sandbox}\nlive key    ${created.keys.live}\nsandbox number ${created.numbers.sandbox.join(', ')}\nThe keys are shown only once.\n`);
  }
  if (sub === 'list') {
    const rows = await withStore(dataDir, (s) => s.accounts.list());
    if (json) return out(JSON.stringify(rows.map(presentAccount)) + '\n');
    return out(rows.map((r) => `${r.id}\t${r.plan}\t${r.name}`).join('\n') + '\n');
  }
  if (sub === 'update') {
    const id = positionals[0];
    if (!id) throw new UsageError('accounts update needs an account id');
    const rate = values['rate-limit'] as string | undefined;
    const concurrent = values['concurrent-calls'] as string | undefined;
    const row = await withStore(dataDir, (s) => s.accounts.update(id, {
      plan: values.plan === undefined ? undefined : plan(values.plan),
      name: values.name as string | undefined,
      rateLimitPerMinute: rate === undefined ? undefined : rate === 'default' ? null : integer(rate, 'rate-limit'),
      concurrentCalls: concurrent === undefined ? undefined : concurrent === 'default' ? null : concurrent === 'unlimited' ? -1 : integer(concurrent, 'concurrent-calls'),
      trialEndsAt: values['trial-ends-at'] === undefined ? undefined : new Date(required(values, 'trial-ends-at')).toISOString(),
    }));
    return out((json ? JSON.stringify(presentAccount(row)) : `updated ${row.id}`) + '\n');
  }
  throw new UsageError(commandUsage('accounts'));
}
