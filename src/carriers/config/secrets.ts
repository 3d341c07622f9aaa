// Secrets never sit in the carriers file: a secret field holds `env:NAME` and the loader
// reads the variable when the file is loaded. Any other string field may use `env:` too
// (a host that differs per environment), but only secret fields insist on it.
import { Type, type TString } from 'typebox';

export const ENV_REFERENCE = /^env:([A-Za-z_][A-Za-z0-9_]*)$/;
/** The JSON-schema keyword the loader checks; it also hides the value from `carriers check`. */
export const SECRET_KEYWORD = 'x-secret';

/** A secret field: must be written as `env:NAME`; the loaded config holds the variable's value. */
export function Secret(description: string): TString {
  return Type.String({ minLength: 1, description: `${description} Written as env:NAME.`, [SECRET_KEYWORD]: true });
}

export interface EnvResolution {
  /** The document with every `env:NAME` string replaced by the variable's value. */
  value: unknown;
  /** JSON pointers of the strings written as env: references. */
  fromEnv: Set<string>;
  /** Path segments and message for each reference to an unset variable. */
  missing: { path: (string | number)[]; message: string }[];
}

export function resolveEnvReferences(doc: unknown, env: Record<string, string | undefined>): EnvResolution {
  const fromEnv = new Set<string>();
  const missing: EnvResolution['missing'] = [];
  const walk = (node: unknown, path: (string | number)[]): unknown => {
    if (typeof node === 'string') {
      const match = ENV_REFERENCE.exec(node);
      if (!match) return node;
      const value = env[match[1]!];
      if (value === undefined || value === '') {
        missing.push({ path, message: `refers to the environment variable ${match[1]}, which is not set` });
        fromEnv.add(pointer(path)); // reported once, as unset, not again as a secret in clear
        return node;
      }
      fromEnv.add(pointer(path));
      return value;
    }
    if (Array.isArray(node)) return node.map((item, i) => walk(item, [...path, i]));
    if (node !== null && typeof node === 'object') {
      return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v, [...path, k])]));
    }
    return node;
  };
  return { value: walk(doc, []), fromEnv, missing };
}

export function pointer(path: (string | number)[]): string {
  return path.map((p) => `/${String(p).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}
