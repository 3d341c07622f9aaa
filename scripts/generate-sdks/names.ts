// Identifier spelling for each language, from JSON names (snake_case) and operation ids (camelCase).

/** Splits `createCall`, `webhook_url`, `AI agents`, `doc-id` into lower-case words. */
export function words(s: string): string[] {
  return s
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
}

export function pascal(s: string): string {
  return words(s).map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}

export function camel(s: string): string {
  const p = pascal(s);
  return p[0]!.toLowerCase() + p.slice(1);
}

export function snake(s: string): string {
  return words(s).join('_');
}

const GO_INITIALISMS = new Set(['id', 'url', 'ip', 'ips', 'sms', 'mms', 'api', 'http', 'ai', 'uri', 'json', 'pii', 'e164']);

/** Go exported names keep initialisms upper-case: webhook_url -> WebhookURL. */
export function goName(s: string): string {
  return words(s).map((w) => (GO_INITIALISMS.has(w) ? (w === 'ips' ? 'IPs' : w.toUpperCase()) : w[0]!.toUpperCase() + w.slice(1))).join('');
}

const PYTHON_HARD_KEYWORDS = new Set(['from', 'import', 'class', 'def', 'return', 'global', 'lambda', 'pass', 'in', 'is', 'not', 'or', 'and', 'if', 'else', 'for', 'while', 'with', 'as', 'try', 'except', 'raise', 'del', 'yield', 'async', 'await', 'None', 'True', 'False', 'finally', 'continue', 'break', 'elif', 'assert', 'nonlocal']);

/** A Python identifier for a JSON name: keywords get a trailing underscore (`from` -> `from_`). */
export function pyName(s: string): string {
  const n = snake(s);
  return PYTHON_HARD_KEYWORDS.has(n) ? n + '_' : n;
}

const JS_RESERVED = new Set(['delete', 'default', 'new', 'class', 'function', 'import', 'export', 'return', 'in', 'of', 'var', 'let', 'const']);

/** A safe JS parameter name. */
export function jsParam(s: string): string {
  const n = camel(s);
  return JS_RESERVED.has(n) ? n + '_' : n;
}

/** A quoted property key for TS/JS when the JSON name is not a plain identifier. */
export function jsKey(s: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(s) ? s : JSON.stringify(s);
}
