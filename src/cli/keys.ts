import { integer, parse, required, UsageError } from './args.ts';
import { commandUsage } from './usage.ts';
import { withStore } from './store.ts';
import { present } from '../modules/keys/service.ts';

const csv = (v: unknown) => (typeof v === 'string' ? v.split(',').map((s) => s.trim()).filter(Boolean) : undefined);

export async function keysCommand(argv: string[], out: (s: string) => void): Promise<void> {
  const [sub, ...rest] = argv;
  const { values, positionals } = parse(rest, {
    account: { type: 'string' }, mode: { type: 'string' }, name: { type: 'string' }, scopes: { type: 'string' },
    'allowed-ips': { type: 'string' }, 'grace-seconds': { type: 'string' }, 'data-dir': { type: 'string' }, json: { type: 'boolean' },
  });
  const dataDir = values['data-dir'] as string | undefined;
  const json = Boolean(values.json);
  const mode = values.mode as string | undefined;
  if (mode !== undefined && mode !== 'sandbox' && mode !== 'live') throw new UsageError('--mode must be sandbox or live');
  const now = new Date();

  // Finds a key by id alone: the CLI is the operator's tool and sees every account.
  const findKey = async (s: Parameters<Parameters<typeof withStore>[1]>[0], id: string) => {
    const row = await s.database.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw new UsageError(`no key ${id}`);
    return row;
  };

  if (sub === 'create') {
    const { row, secret } = await withStore(dataDir, async (s) => {
      const account = await s.accounts.get(required(values, 'account'));
      return s.keys.create(s.database.db, {
        accountId: account.id, mode: (mode ?? 'sandbox') as 'sandbox' | 'live', name: values.name as string | undefined,
        // The operator's tool: without --scopes the key gets everything, as the default keys do.
        scopes: csv(values.scopes) ?? ['*'], allowedIps: csv(values['allowed-ips']),
      });
    });
    return out(json ? JSON.stringify({ ...present(row, now), secret }) + '\n' : `${row.id}\n${secret}\nThe secret is shown only once.\n`);
  }
  if (sub === 'list') {
    const rows = await withStore(dataDir, async (s) => {
      let q = s.database.db.selectFrom('api_keys').selectAll().where('account_id', '=', required(values, 'account'));
      if (mode) q = q.where('mode', '=', mode as 'sandbox' | 'live');
      return q.orderBy('id', 'desc').execute();
    });
    const keys = rows.map((r) => present(r, now));
    return out(json ? JSON.stringify(keys) + '\n' : keys.map((k) => `${k.id}\t${k.mode}\t${k.status}\t${k.redacted}\t${k.name}`).join('\n') + '\n');
  }
  if (sub === 'rotate' || sub === 'revoke') {
    const id = positionals[0];
    if (!id) throw new UsageError(`keys ${sub} needs a key id`);
    const result = await withStore(dataDir, async (s) => {
      const key = await findKey(s, id);
      if (sub === 'rotate') {
        const r = await s.keys.rotate(key.account_id, key.mode, id, integer(values['grace-seconds'], 'grace-seconds'));
        return { key: { ...present(r.row, now), secret: r.secret }, previous_key: present(r.previous, now) };
      }
      return present(await s.keys.revoke(key.account_id, key.mode, id, ''), now);
    });
    return out(json ? JSON.stringify(result) + '\n' : `${sub}d ${id}\n` + ('key' in result ? `new key ${result.key.id}\n${result.key.secret}\n` : ''));
  }
  throw new UsageError(commandUsage('keys'));
}
