// JSON text into a request body, refusing with a problem that says what is wrong and where.
// - Invalid JSON is `malformed_json` whose detail names the line and column (and the character
//   offset) of the first mistake: V8 gives a position for most mistakes but not all
//   ("Unexpected token"), so a small scanner finds it when V8 does not say.
// - Valid JSON with a `__proto__` key, or a `constructor` object with a `prototype` key, is a
//   `validation_failed` naming the key: code that copies a body with Object.assign or a merge
//   would set an object's prototype from it (prototype pollution). No field of ours has
//   either name, so refusing costs nothing; calling such a body "not JSON" would be untrue.
import { Problem } from './problems.ts';

/**
 * How deep a body's objects and arrays may nest. A flow's verbs nest a few levels; thousands
 * of levels (valid JSON) overflowed the stack of the recursive walks that read a body, a 500.
 */
export const MAX_JSON_DEPTH = 64;

export function parseJsonText(text: string): unknown {
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw new Problem('validation_failed', `The body nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep; no request needs more.`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw malformed(text, (err as Error).message);
  }
  // A forbidden key is spelled out in the text, or escaped (\u005f...): skip the walk otherwise.
  if (/__proto__|constructor|\\u/.test(text)) refuseForbiddenKeys(value);
  return value;
}

function malformed(text: string, v8Message: string): Problem {
  const reason = v8Message
    .replace(/ in JSON at position \d+.*$/s, '')
    .replace(/, (?:\.\.\.)?".*"(?:\.\.\.)? is not valid JSON$/s, '') // V8 quotes the text (or a part of it): the body is the client's own
    .replace(/^Unexpected end of JSON input$/, 'The JSON ends too early');
  const stated = /at position (\d+)/.exec(v8Message)?.[1];
  const offset = stated !== undefined ? Number(stated)
    : v8Message === 'Unexpected end of JSON input' ? text.length
    : syntaxErrorOffset(text);
  if (offset === null) return new Problem('malformed_json', `The body is not valid JSON: ${reason}.`);
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  return new Problem('malformed_json', `The body is not valid JSON: ${reason}, at line ${line}, column ${column} (character ${offset + 1}).`);
}

/** Where the first syntax error of `text` is (a UTF-16 offset, as V8 counts), or null if none is found. */
export function syntaxErrorOffset(text: string): number | null {
  let i = 0;
  const fail = (): never => { throw new ScanError(i); };
  const ws = () => { while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++; };
  const number = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

  function string(): void {
    i++; // the opening quote
    for (;;) {
      if (i >= text.length) fail();
      const c = text.charCodeAt(i);
      if (c === 0x22) { i++; return; }
      if (c < 0x20) fail();
      if (c === 0x5c) {
        i++;
        const e = text[i];
        if (e === 'u') {
          for (let k = 1; k <= 4; k++) { i++; if (!/[0-9a-fA-F]/.test(text[i] ?? '')) fail(); }
        } else if (e === undefined || !'"\\/bfnrt'.includes(e)) fail();
      }
      i++;
    }
  }

  function value(depth: number): void {
    if (depth > 2_000) throw new ScanError(null); // deeper than we scan: no position
    ws();
    const c = text[i];
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      i++;
      ws();
      if (text[i] === close) { i++; return; }
      for (;;) {
        if (c === '{') {
          ws();
          if (text[i] !== '"') fail();
          string();
          ws();
          if (text[i] !== ':') fail();
          i++;
        }
        value(depth + 1);
        ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === close) { i++; return; }
        fail();
      }
    }
    if (c === '"') return string();
    number.lastIndex = i;
    if (number.test(text)) { i = number.lastIndex; return; }
    for (const literal of ['true', 'false', 'null']) {
      if (literal[0] !== c) continue;
      let k = 0;
      while (k < literal.length && text[i] === literal[k]) { i++; k++; }
      if (k === literal.length) return;
    }
    fail();
  }

  try {
    value(0);
    ws();
    if (i < text.length) fail();
    return null;
  } catch (err) {
    if (err instanceof ScanError) return err.offset;
    if (err instanceof RangeError) return null; // the stack ran out first: no position, still a 400
    throw err;
  }
}

class ScanError {
  constructor(readonly offset: number | null) {}
}

/** Walks the parsed body without recursion (a deep body must not overflow the stack). */
function refuseForbiddenKeys(root: unknown): void {
  const stack: Array<{ node: unknown; path: string[] }> = [{ node: root, path: [] }];
  while (stack.length > 0) {
    const { node, path } = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    const isArray = Array.isArray(node);
    for (const key of Object.keys(node)) {
      const child = (node as Record<string, unknown>)[key];
      if (!isArray && key === '__proto__') throw forbidden([...path, key], '__proto__');
      if (!isArray && key === 'constructor' && child !== null && typeof child === 'object' && Object.hasOwn(child, 'prototype')) {
        throw forbidden([...path, key, 'prototype'], 'constructor.prototype');
      }
      stack.push({ node: child, path: [...path, key] });
    }
  }
}

function forbidden(path: string[], key: string): Problem {
  const field = path.join('.');
  const why = 'it could change the prototype of an object built from the body (prototype pollution), so it is refused wherever it appears; no field takes it';
  return new Problem('validation_failed', `The body has the key "${key}" at ${field}: ${why}. Remove or rename it.`, {
    errors: [{ field, code: 'not_allowed', message: `"${key}" is not allowed as a key: ${why}` }],
  });
}

/** Whether the brackets of `text` (outside strings) open more than `limit` levels at once. */
function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) { if (++depth > limit) return true; }
    else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}
