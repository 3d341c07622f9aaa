// Checks a flow document against the schema, verb by verb, and names the JSON path of every
// error in the form users read in docs and events: `flow[2].say.loop`. A webhook's answer
// and an inline flow given to the API go through the same function.
import { Value } from 'typebox/value';
import type { FieldError } from '../../../platform/problems.ts';
import { codeForKeyword, type FieldErrorCode } from '../../../platform/field-errors.ts';
import { FLOW_LIMITS, VERB_NAMES, VERB_SCHEMAS, type Verb, type VerbName } from './schema.ts';

export type FlowCheck = { ok: true; verbs: Verb[] } | { ok: false; errors: FieldError[] };

export function validateFlow(document: unknown, root = 'flow'): FlowCheck {
  const errors: FieldError[] = [];
  if (!Array.isArray(document)) return fail(root, 'must be an array of verbs', 'invalid_type');
  if (document.length === 0) return fail(root, 'must hold at least one verb', 'too_short');
  if (document.length > FLOW_LIMITS.verbs) return fail(root, `must hold at most ${FLOW_LIMITS.verbs} verbs`, 'too_long');
  if (JSON.stringify(document).length > FLOW_LIMITS.bytes) return fail(root, `must be at most ${FLOW_LIMITS.bytes} bytes as JSON`, 'too_long');
  document.forEach((item, i) => {
    const at = `${root}[${i}]`;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      errors.push({ field: at, message: `must be an object with one key naming the verb (${VERB_NAMES.join(', ')})`, code: 'invalid_type' });
      return;
    }
    const keys = Object.keys(item);
    if (keys.length !== 1) {
      errors.push({ field: at, message: `must have exactly one key naming the verb, not ${keys.length}`, code: 'invalid_value' });
      return;
    }
    const name = keys[0] as string;
    if (!(VERB_NAMES as string[]).includes(name)) {
      errors.push({ field: `${at}.${name}`, message: `is not a verb; use one of: ${VERB_NAMES.join(', ')}`, code: 'invalid_value' });
      return;
    }
    const body = (item as Record<string, unknown>)[name];
    const schema = VERB_SCHEMAS[name as VerbName];
    for (const error of Value.Errors(schema, body)) {
      if (error.keyword !== 'boolean') errors.push(toFieldError(`${at}.${name}`, error)); // 'boolean' repeats additionalProperties
    }
  });
  if (errors.length > 0) return { ok: false, errors };
  // Defaults (loop: 1) are filled in so the interpreter reads one shape.
  const verbs = document.map((item) => {
    const name = Object.keys(item)[0] as VerbName;
    return { [name]: Value.Default(VERB_SCHEMAS[name], structuredClone(item[name])) } as Verb;
  });
  return { ok: true, verbs };
}

function fail(field: string, message: string, code: FieldErrorCode): FlowCheck {
  return { ok: false, errors: [{ field, message, code }] };
}

interface TypeBoxError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message: string;
}

function toFieldError(prefix: string, error: TypeBoxError): FieldError {
  const path = error.instancePath.split('/').filter(Boolean).map((p) => (/^\d+$/.test(p) ? `[${p}]` : `.${p}`)).join('');
  let field = `${prefix}${path}`;
  let message = error.message;
  if (error.keyword === 'required') {
    const missing = (error.params.requiredProperties as string[] | undefined)?.[0] ?? (error.params.missingProperty as string | undefined);
    if (missing) field = `${field}.${missing}`;
    message = 'is required';
  } else if (error.keyword === 'additionalProperties') {
    const extra = (error.params.additionalProperties as string[] | undefined)?.[0] ?? (error.params.additionalProperty as string | undefined);
    if (extra) field = `${field}.${extra}`;
    message = 'is not a known field of this verb';
  }
  return { field, message, code: codeForKeyword(error.keyword) };
}
