import { parseArgs } from 'node:util';

export type Options = Record<string, { type: 'string' | 'boolean'; short?: string }>;

/** Parses flags strictly: an unknown flag is an error with usage, not a silent ignore. */
export function parse(argv: string[], options: Options) {
  return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
}

export class UsageError extends Error {}

export function required(values: Record<string, unknown>, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

export function integer(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n)) throw new UsageError(`--${name} must be a whole number`);
  return n;
}
