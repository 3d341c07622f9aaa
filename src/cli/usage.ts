// Every `switchboard` command and subcommand, with its usage and what it does: the one source
// of `switchboard --help`, `switchboard <command> [<subcommand>] --help` and the usage printed
// after a mistake. The README's command list is `switchboard --help`, word for word (a test
// compares them).
import { readFileSync } from 'node:fs';

export interface Usage {
  /** The usage lines, `switchboard ...` first; a long one continues on indented lines. */
  usage: string;
  /** What it does, in a sentence or two. */
  summary: string;
}

export interface Command {
  name: string;
  /** A command without subcommands (serve, listen) has its own usage. */
  own?: Usage;
  subcommands?: Record<string, Usage>;
  /** Whether it opens the store (every command but listen and carriers). */
  store: boolean;
}

export const COMMANDS: Command[] = [
  {
    name: 'serve',
    store: true,
    own: {
      usage: 'switchboard serve [--host H] [--port P] [--data-dir D] [--metrics-port P]',
      summary: 'Runs the API server until SIGINT or SIGTERM, then drains and stops.',
    },
  },
  {
    name: 'accounts',
    store: true,
    subcommands: {
      create: {
        usage: 'switchboard accounts create --plan trial|growth|scale|enterprise [--name N] [--json]',
        summary: 'Creates an account with a sandbox key, a live key and a sandbox number; the keys are printed once.',
      },
      list: {
        usage: 'switchboard accounts list [--json]',
        summary: 'Lists every account of the store.',
      },
      update: {
        usage: 'switchboard accounts update <acct_id> [--plan P] [--name N] [--rate-limit N|default]\n'
          + '                            [--concurrent-calls N|unlimited|default] [--trial-ends-at RFC3339] [--json]',
        summary: "Changes an account's plan, name or caps; `default` goes back to the plan's value.",
      },
    },
  },
  {
    name: 'keys',
    store: true,
    subcommands: {
      create: {
        usage: 'switchboard keys create --account acct_... --mode sandbox|live [--name N] [--scopes a,b] [--allowed-ips cidr,...] [--json]',
        summary: 'Creates an API key (every scope unless --scopes, e.g. calls:write,messages:read); the secret is printed once.',
      },
      list: {
        usage: 'switchboard keys list --account acct_... [--mode M] [--json]',
        summary: "Lists an account's keys, redacted.",
      },
      rotate: {
        usage: 'switchboard keys rotate <key_id> [--grace-seconds N] [--json]',
        summary: 'Issues a new secret for a key; the old one keeps working for the grace period.',
      },
      revoke: {
        usage: 'switchboard keys revoke <key_id> [--json]',
        summary: 'Revokes a key at once.',
      },
    },
  },
  {
    name: 'numbers',
    store: true,
    subcommands: {
      import: {
        usage: 'switchboard numbers import --account acct_... --number +1... [--mode live] [--capabilities voice,sms] [--type local] [--inventory]\n'
          + '                           [--trunk NAME] [--messaging-carrier NAME] [--json]',
        summary: 'Brings a number you own on a carrier into an account: active at once, or with --inventory into the '
          + "account's inventory for POST /v1/numbers. --mode live (default) or sandbox; --capabilities of voice, sms, mms, "
          + 'whatsapp (default voice,sms,mms); --type local, mobile or toll_free. --trunk and --messaging-carrier bind it to '
          + 'links of SWITCHBOARD_CARRIERS_FILE by name (their env: secrets need not be set here).',
      },
      bind: {
        usage: 'switchboard numbers bind <num_id> [--trunk NAME|none] [--messaging-carrier NAME|none] [--json]',
        summary: 'Binds a live number to a voice trunk or messaging link of SWITCHBOARD_CARRIERS_FILE by name; `none` goes back to the default link.',
      },
    },
  },
  {
    name: 'carriers',
    store: false,
    subcommands: {
      check: {
        usage: 'switchboard carriers check [--file carriers.yaml] [--timeout-ms 5000] [--json]',
        summary: 'Checks the carriers file (default SWITCHBOARD_CARRIERS_FILE) as `serve` would, connects to each link and '
          + 'prints what answered; exits 1 when the file is bad or a link fails.',
      },
    },
  },
  {
    name: 'listen',
    store: false,
    own: {
      usage: 'switchboard listen --forward-to http://localhost:3000/hooks [--events call.*,message.*] [--api-key K] [--api-url U] [--json]',
      summary: "Forwards a running server's webhooks to a local URL, byte for byte with their signature headers, and reports "
        + 'the answers back. --api-key defaults to SWITCHBOARD_API_KEY, --api-url to SWITCHBOARD_BASE_URL or http://127.0.0.1:8080.',
    },
  },
];

const HELP_LINES = 'switchboard <command> [<subcommand>] --help\nswitchboard --version';

const STORE_NOTE = 'It works on the store of --data-dir D (SWITCHBOARD_DATA_DIR, default ./data), or on PostgreSQL when '
  + 'DATABASE_URL=postgres://... is set, also while a server runs on it.';

function usagesOf(command: Command): string[] {
  return command.own ? [command.own.usage] : Object.values(command.subcommands ?? {}).map((s) => s.usage);
}

/** `switchboard --help`: every usage, in the README's order and words. */
export function usage(): string {
  return [...COMMANDS.flatMap(usagesOf), HELP_LINES].join('\n');
}

/** One command's usage lines (all its subcommands'), for `switchboard <command> --help` and mistakes. */
export function commandUsage(name: string): string {
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) throw new Error(`no command ${name}`);
  return usagesOf(command).join('\n');
}

/**
 * The help for `argv` (the arguments after `switchboard`, which hold --help or -h): the
 * subcommand's usage and what it does, else the command's usages, else everything.
 */
export function helpFor(argv: string[]): string {
  const words = argv.filter((a) => !a.startsWith('-'));
  const command = COMMANDS.find((c) => c.name === words[0]);
  if (!command) return usage();
  const one = command.own ?? command.subcommands?.[words[1] ?? ''];
  const note = command.store ? `\n\n${wrap(STORE_NOTE)}` : '';
  if (one) return `${one.usage}\n\n${wrap(one.summary)}${note}`;
  const subs = Object.entries(command.subcommands ?? {}).map(([name, s]) => wrap(s.summary, `  ${name.padEnd(8)} `)).join('\n');
  return `${commandUsage(command.name)}\n\n${subs}${note}`;
}

/** Wraps prose at 100 columns; continuation lines are indented as far as the prefix. */
function wrap(text: string, prefix = ''): string {
  const lines: string[] = [];
  let line = prefix;
  let fresh = true;
  for (const word of text.split(' ')) {
    if (!fresh && line.length + 1 + word.length > 100) {
      lines.push(line);
      line = ' '.repeat(prefix.length);
      fresh = true;
    }
    line += fresh ? word : ` ${word}`;
    fresh = false;
  }
  lines.push(line);
  return lines.join('\n');
}

/** True when the arguments ask for help: --help or -h before any `--`. */
export function wantsHelp(argv: string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).some((a) => a === '--help' || a === '-h');
}

export function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}
