// Loads SWITCHBOARD_CARRIERS_FILE: YAML or JSON (YAML 1.2 reads both, with line numbers),
// `env:NAME` references resolved, every section validated against the schema its kind
// registered. Every problem is reported at once, each naming its place in the file
// (`carriers.yaml:12:7 smpp[0].port: must be <= 65535`), so an operator fixes the file in
// one pass. `serve` and `switchboard carriers check` print the same messages.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type * as Yaml from 'yaml';
import type { Document } from 'yaml';
import { lazyRequire } from '../../platform/lazy-require.ts';
import { fieldErrors } from '../../platform/validation.ts';
import { carrierKinds, type CarrierKind, type CarrierLink } from './registry.ts';
import { SECRET_KEYWORD, pointer, resolveEnvReferences } from './secrets.ts';
import './kinds.ts';

/** Loaded when a carriers file is read (see platform/lazy-require.ts). */
const yaml = lazyRequire<typeof Yaml>('yaml');

export interface CarriersConfig {
  /** The file it came from; null when SWITCHBOARD_CARRIERS_FILE is not set. */
  file: string | null;
  /** Each section's validated value (defaults filled, secrets resolved), by section key. */
  sections: Record<string, unknown>;
  links: CarrierLink[];
}

export const NO_CARRIERS: CarriersConfig = { file: null, sections: {}, links: [] };

export class CarriersFileError extends Error {
  constructor(readonly file: string, readonly problems: string[]) {
    super(`the carriers file ${file} has ${problems.length === 1 ? 'a problem' : `${problems.length} problems`}:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  }
}

// Secret fields come from the environment; the keyword checks it. `fromEnv` is set for the
// duration of one synchronous validation.
let fromEnv = new Set<string>();
const ajv = new Ajv({ allErrors: true, useDefaults: true, coerceTypes: false, strict: false });
ajv.addKeyword({
  keyword: SECRET_KEYWORD,
  errors: true,
  validate: function secret(this: unknown, _schema: unknown, data: unknown, _parent: unknown, cxt?: { instancePath: string }) {
    if (typeof data !== 'string' || fromEnv.has(cxt?.instancePath ?? '')) return true;
    (secret as unknown as { errors: Partial<ErrorObject>[] }).errors = [{
      keyword: SECRET_KEYWORD, params: {}, message: 'is a secret: write it as env:NAME and set that environment variable, not the value itself',
    }];
    return false;
  },
});
const validators = new Map<CarrierKind, ValidateFunction>();
function validatorOf(kind: CarrierKind): ValidateFunction {
  let v = validators.get(kind);
  if (!v) validators.set(kind, (v = ajv.compile(kind.schema as object)));
  return v;
}

/** Reads and checks the file; throws CarriersFileError listing every problem. */
export function loadCarriersFile(file: string | undefined, env: Record<string, string | undefined> = process.env): CarriersConfig {
  if (!file) return NO_CARRIERS;
  return parseCarriersText(readCarriersFile(file), file, env);
}

/** A link as a tool that binds to it by name sees it: no config, so no secret. */
export type LinkSummary = Omit<CarrierLink, 'config' | 'target'>;

/**
 * The links the file configures, for tools that refer to them by name and connect to none
 * (`switchboard numbers import --trunk`, `numbers bind`). The file is checked as `serve`
 * checks it, except that `env:` references stay unresolved: their variables need only be set
 * where a connection is made (`serve`, `carriers check`). A value that depends on one is not
 * judged here, since it is not known.
 */
export function loadCarrierLinks(file: string | undefined): LinkSummary[] {
  if (!file) return [];
  return parseCarriersText(readCarriersFile(file), file, {}, { resolveEnv: false }).links
    .map(({ config: _config, target: _target, ...link }) => link);
}

function readCarriersFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new CarriersFileError(file, [`cannot be read: ${(err as Error).message}`]);
  }
}

export function parseCarriersText(
  text: string, file: string, env: Record<string, string | undefined>, opts: { resolveEnv?: boolean } = {},
): CarriersConfig {
  const resolveEnv = opts.resolveEnv ?? true;
  const { LineCounter, parseDocument } = yaml();
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const name = basename(file);
  const at = (offset: number | undefined) => {
    if (offset === undefined) return name;
    const { line, col } = lines.linePos(offset);
    return `${name}:${line}:${col}`;
  };
  if (doc.errors.length > 0) {
    throw new CarriersFileError(file, doc.errors.map((e) => `${at(e.pos[0])} ${e.message.split('\n')[0]}`));
  }
  const raw = doc.toJS() as unknown;
  if (raw === null || raw === undefined) return { file, sections: {}, links: [] };
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw new CarriersFileError(file, [`${at(0)} must be a mapping of sections (${carrierKinds().map((k) => k.section).join(', ')})`]);
  }

  const problems: string[] = [];
  // Without resolution every env: reference is left as written; what depends on its value
  // (the reference itself, and problems inside it) is not reported.
  const resolved = resolveEnvReferences(raw, resolveEnv ? env : {});
  const unresolved = resolveEnv ? [] : resolved.missing.map((m) => pointer(m.path));
  const report = (path: (string | number)[], message: string) => {
    const here = pointer(path);
    if (unresolved.some((p) => here === p || here.startsWith(`${p}/`))) return;
    problems.push(`${at(offsetOf(doc, path))} ${display(path)}: ${message}`);
  };
  for (const m of resolved.missing) report(m.path, m.message);

  const known = new Map(carrierKinds().map((k) => [k.section, k]));
  const sections: Record<string, unknown> = {};
  const links: CarrierLink[] = [];
  for (const [key, value] of Object.entries(resolved.value as Record<string, unknown>)) {
    const kind = known.get(key);
    if (!kind) {
      report([key], `is not a known section; the sections are ${[...known.keys()].join(', ')}`);
      continue;
    }
    const validate = validatorOf(kind);
    fromEnv = new Set([...resolved.fromEnv].filter((p) => p.startsWith(`/${key}/`) || p === `/${key}`).map((p) => p.slice(key.length + 1)));
    const ok = validate(value);
    fromEnv = new Set();
    if (!ok) {
      const choices = choicesByPath(validate.errors ?? []);
      for (const e of fieldErrors(validate.errors ?? [], '')) {
        const path = [key, ...(e.field ? e.field.split('.') : [])].map((s) => (/^\d+$/.test(s) ? Number(s) : s));
        // A union of constants (long_messages, bind...) names its choices: the API's wording
        // points at an endpoint's reference, which a carriers file does not have.
        const values = e.code === 'invalid_value' ? choices.get(e.field) : undefined;
        report(path, values ? `must be one of: ${values.join(', ')}` : e.message);
      }
      continue;
    }
    const checked = kind.check?.(value) ?? [];
    for (const problem of checked) report([key, ...problem.path], problem.message);
    if (checked.length > 0) continue;
    sections[key] = value;
    links.push(...kind.links(value, key));
  }

  const byName = new Map<string, CarrierLink>();
  for (const link of links) {
    const earlier = byName.get(link.name);
    if (earlier) report([...segments(link.path), 'name'], `"${link.name}" is already the name of ${earlier.path}; names are unique across the file`);
    else byName.set(link.name, link);
  }
  if (problems.length > 0) throw new CarriersFileError(file, problems);
  return { file, sections, links };
}

/** `smpp[0].password` from ['smpp', 0, 'password']. */
function display(path: (string | number)[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

function segments(display: string): (string | number)[] {
  return display.split(/\.|\[|\]/).filter(Boolean).map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

/** Where the deepest existing node on the path starts (a missing field points at its parent). */
function offsetOf(doc: Document, path: (string | number)[]): number | undefined {
  for (let n = path.length; n >= 0; n--) {
    const node = n === 0 ? doc.contents : doc.getIn(path.slice(0, n), true);
    if (yaml().isNode(node) && node.range) return node.range[0];
  }
  return undefined;
}


/** For each union of constants that failed, the constants it accepts (keyed like FieldError.field). */
function choicesByPath(errors: ErrorObject[]): Map<string, unknown[]> {
  const out = new Map<string, unknown[]>();
  for (const e of errors) {
    if (e.keyword !== 'const') continue;
    const field = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
    out.set(field, [...(out.get(field) ?? []), (e.params as { allowedValue: unknown }).allowedValue]);
  }
  return out;
}
