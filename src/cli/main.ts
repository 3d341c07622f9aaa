// `switchboard <command>`: serve, accounts, keys, numbers, carriers.
import { loadConfig } from '../config.ts';
import { integer, parse, UsageError } from './args.ts';
import { accountsCommand, ACCOUNTS_USAGE } from './accounts.ts';
import { keysCommand, KEYS_USAGE } from './keys.ts';
import { numbersCommand, NUMBERS_USAGE } from './numbers.ts';
import { carriersCommand, CARRIERS_USAGE } from './carriers.ts';
import { listenCommand, ListenError, LISTEN_USAGE } from './listen.ts';
import { CarriersFileError } from '../carriers/config/load.ts';
import { Problem } from '../platform/problems.ts';

const USAGE = `usage:
switchboard serve [--host H] [--port P] [--data-dir D]     (DATABASE_URL=postgres://... selects PostgreSQL)
${ACCOUNTS_USAGE}
${KEYS_USAGE}
${NUMBERS_USAGE}
${CARRIERS_USAGE}
${LISTEN_USAGE}`;

const out = (s: string): void => {
  process.stdout.write(s);
};

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve': {
      const { values } = parse(rest, { host: { type: 'string' }, port: { type: 'string' }, 'data-dir': { type: 'string' } });
      const { serveForever } = await import('../main.ts');
      const config = loadConfig(process.env, {
        ...(values.host ? { host: values.host as string } : {}),
        ...(values.port ? { port: integer(values.port, 'port')! } : {}),
        ...(values['data-dir'] ? { dataDir: values['data-dir'] as string } : {}),
      });
      return serveForever(config);
    }
    case 'accounts':
      return accountsCommand(rest, out);
    case 'keys':
      return keysCommand(rest, out);
    case 'numbers':
      return numbersCommand(rest, out);
    case 'carriers':
      return carriersCommand(rest, out);
    case 'listen':
      await listenCommand(rest, out);
      return process.exit(0); // pooled keep-alive connections would hold the process a few seconds more
    case undefined:
    case 'help':
    case '--help':
      return out(USAGE + '\n');
    default:
      throw new UsageError(`unknown command "${command}"\n${USAGE}`);
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    process.stderr.write(`switchboard: ${(err as Error).message}\n`);
    process.exit(2);
  }
  if (err instanceof Problem || err instanceof CarriersFileError || err instanceof ListenError) {
    process.stderr.write(`switchboard: ${err.message}\n`);
    process.exit(1);
  }
  process.stderr.write(`switchboard: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
