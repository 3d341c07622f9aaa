// Checks a flow document against the schema, verb by verb, and names the JSON path of every
// error in the form users read in docs and events: `flow[2].say.loop`. A webhook's answer
// and an inline flow given to the API go through the same function.
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FieldError } from '../../../platform/problems.ts';
import type { FieldErrorCode } from '../../../platform/field-errors.ts';
import { fieldErrors } from '../../../platform/validation.ts';
import { FLOW_LIMITS, VERB_NAMES, VERB_SCHEMAS, type Verb, type VerbName } from './schema.ts';
import { definitionOf } from './verbs/registry.ts';

// The same validator and error vocabulary as request bodies (formats such as `uri` included),
// with defaults filled in so the interpreter reads one shape.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
let ajv: Ajv | undefined;
const checkers = new Map<VerbName, ValidateFunction>();

/**
 * A verb's checker, compiled when a flow first uses that verb (as route schemas are): compiling
 * all of them at import cost every process that loads the app, each test file and CLI
 * command included, about 0.2 s of CPU, most of them never validating a flow.
 */
function checkerFor(name: VerbName): ValidateFunction {
  let check = checkers.get(name);
  if (!check) {
    ajv ??= addFormats(new Ajv({ allErrors: true, coerceTypes: false, useDefaults: true, strict: false, verbose: true }));
    check = ajv.compile(VERB_SCHEMAS[name] as object);
    checkers.set(name, check);
  }
  return check;
}

export type FlowCheck = { ok: true; verbs: Verb[] } | { ok: false; errors: FieldError[] };

export function validateFlow(document: unknown, root = 'flow'): FlowCheck {
  const errors: FieldError[] = [];
  const verbs: Verb[] = [];
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
    const body = structuredClone((item as Record<string, unknown>)[name]);
    const check = checkerFor(name as VerbName);
    if (check(body)) {
      const verb = { [name]: body } as Verb;
      const conflicts = definitionOf(verb).def.conflicts?.(body as never) ?? [];
      for (const { path, message, code } of conflicts) errors.push({ field: `${at}.${name}.${path}`, message, code });
      if (conflicts.length === 0) verbs.push(verb);
    } else {
      for (const e of fieldErrors(check.errors ?? [], 'body')) {
        errors.push({ ...e, field: e.field === '' ? `${at}.${name}` : `${at}.${name}.${e.field}`.replace(/\.(\d+)(?=\.|$)/g, '[$1]') });
      }
    }
  });
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, verbs };
}

function fail(field: string, message: string, code: FieldErrorCode): FlowCheck {
  return { ok: false, errors: [{ field, message, code }] };
}


/**
 * The verbs this call's media port cannot run, as errors (each verb's `unheard`: a gather
 * that listens for speech on a live server without a speech-to-text endpoint): such a flow
 * is refused up front rather than left to time out on a caller who is talking.
 */
export function unheardSpeechErrors(verbs: Verb[], media: { hearsSpeech?: boolean }, root = 'flow'): FieldError[] {
  return verbs.flatMap((verb, i) => {
    const { name, body, def } = definitionOf(verb);
    return (def.unheard?.(body, media) ?? []).map(({ path, message, code }) => ({ field: `${root}[${i}].${name}.${path}`, message, code }));
  });
}
