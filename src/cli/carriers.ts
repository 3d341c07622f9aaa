// `switchboard carriers check`: validates SWITCHBOARD_CARRIERS_FILE (or --file) with the
// messages `serve` would stop on, probes each configured link, and prints a table. Exits 1
// when the file is bad or any link fails, so it can gate a deploy.
import { parse, integer, UsageError } from './args.ts';
import { commandUsage } from './usage.ts';
import { loadCarriersFile, CarriersFileError } from '../carriers/config/load.ts';
import { probeLinks, renderTable } from '../carriers/config/check.ts';

export async function carriersCommand(argv: string[], out: (s: string) => void): Promise<void> {
  const [sub, ...rest] = argv;
  if (sub !== 'check') throw new UsageError(commandUsage('carriers'));
  const { values } = parse(rest, { file: { type: 'string' }, 'timeout-ms': { type: 'string' }, json: { type: 'boolean' } });
  const file = (values.file as string | undefined) ?? process.env.SWITCHBOARD_CARRIERS_FILE;
  if (!file) throw new UsageError(`no carriers file: set SWITCHBOARD_CARRIERS_FILE or pass --file\n${commandUsage('carriers')}`);
  let config;
  try {
    config = loadCarriersFile(file);
  } catch (err) {
    if (!(err instanceof CarriersFileError)) throw err;
    if (values.json) out(JSON.stringify({ file, valid: false, problems: err.problems, links: [] }) + '\n');
    else process.stderr.write(`switchboard: ${err.message}\n`);
    process.exitCode = 1;
    return;
  }
  const rows = await probeLinks(config, integer(values['timeout-ms'], 'timeout-ms') ?? 5000);
  if (values.json) out(JSON.stringify({ file, valid: true, problems: [], links: rows }) + '\n');
  else out(rows.length === 0 ? `${file}: valid, and it configures no links\n` : renderTable(rows));
  if (rows.some((r) => !r.ok)) process.exitCode = 1;
}
