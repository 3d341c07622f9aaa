// `switchboard <command>`: serve, accounts, keys, numbers, carriers, listen (usage.ts lists them).
// Each command's module is imported when it runs, so `--help` and `--version` load only usage.ts.
import { integer, parse, UsageError } from './args.ts';
import { listenCommand, ListenError } from './listen.ts';
import { helpFor, usage, version, wantsHelp } from './usage.ts';
import { Problem } from '../platform/problems.ts';

const out = (s: string): void => {
  process.stdout.write(s);
};

async function main(argv: string[]): Promise<void> {
  // Help and version answer before any flag is parsed or any store is opened.
  if (argv[0] === '--version') return out(version() + '\n');
  if (argv[0] === 'help') return out(helpFor(argv.slice(1)) + '\n');
  if (argv.length === 0 || wantsHelp(argv)) return out(helpFor(argv) + '\n');
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve': {
      const { values } = parse(rest, { host: { type: 'string' }, port: { type: 'string' }, 'data-dir': { type: 'string' }, 'metrics-port': { type: 'string' } });
      const { serveForever } = await import('../main.ts');
      const { loadConfig } = await import('../config.ts');
      const config = loadConfig(process.env, {
        ...(values.host ? { host: values.host as string } : {}),
        ...(values.port ? { port: integer(values.port, 'port')! } : {}),
        ...(values['data-dir'] ? { dataDir: values['data-dir'] as string } : {}),
        ...(values['metrics-port'] ? { metricsPort: integer(values['metrics-port'], 'metrics-port')! } : {}),
      });
      return serveForever(config);
    }
    case 'accounts':
      return (await import('./accounts.ts')).accountsCommand(rest, out);
    case 'keys':
      return (await import('./keys.ts')).keysCommand(rest, out);
    case 'numbers':
      return (await import('./numbers.ts')).numbersCommand(rest, out);
    case 'carriers':
      return (await import('./carriers.ts')).carriersCommand(rest, out);
    case 'listen':
      await listenCommand(rest, out);
      return process.exit(0); // pooled keep-alive connections would hold the process a few seconds more
    default:
      throw new UsageError(`unknown command "${command}"\n${usage()}`);
  }
}

main(process.argv.slice(2)).catch(async (err: unknown) => {
  if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    process.stderr.write(`switchboard: ${(err as Error).message}\n`);
    process.exit(2);
  }
  const { CarriersFileError } = await import('../carriers/config/load.ts');
  if (err instanceof Problem || err instanceof CarriersFileError || err instanceof ListenError) {
    process.stderr.write(`switchboard: ${err.message}\n`);
    process.exit(1);
  }
  process.stderr.write(`switchboard: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
