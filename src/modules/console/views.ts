// Small pieces every page uses: times, tables, filters, pagination links and JSON shown as text.
import { html, queryString, type Html } from './html.ts';

export const PAGE_SIZE = 50;

export function time(iso: string | null | undefined): Html {
  return iso ? html`<time datetime="${iso}">${iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}</time>` : html`<span class="muted">–</span>`;
}

export function table(headers: string[], rows: Html[], empty: string): Html {
  if (rows.length === 0) return html`<p class="muted">${empty}</p>`;
  return html`<div class="table-wrap"><table><thead><tr>${headers.map((h) => html`<th>${h}</th>`)}</tr></thead><tbody>${rows}</tbody></table></div>`;
}

/** Any value as indented JSON text (metadata, payloads): escaped like everything else. */
export function json(value: unknown): Html {
  return html`<pre>${JSON.stringify(value, null, 2)}</pre>`;
}

export interface Choice { name: string; label: string; options?: readonly string[]; type?: 'text' | 'date'; placeholder?: string }

/** A GET form: filters live in the URL, so a filtered list can be bookmarked and shared. */
export function filterForm(action: string, choices: Choice[], values: Record<string, string | undefined>): Html {
  return html`<form class="filters" method="get" action="${action}">${choices.map((c) => html`<label>${c.label}${c.options
    ? html`<select name="${c.name}"><option value="">any</option>${c.options.map((o) => html`<option${values[c.name] === o ? html` selected` : ''}>${o}</option>`)}</select>`
    : html`<input name="${c.name}" type="${c.type ?? 'text'}" value="${values[c.name] ?? ''}" placeholder="${c.placeholder ?? ''}">`}</label>`)}<button type="submit">Filter</button></form>`;
}

/** Lists fetch one row more than they show: its presence means there is a next page. */
export function pageOf<T extends { id: string }>(rows: T[], limit = PAGE_SIZE): { rows: T[]; next: string | undefined } {
  return rows.length > limit ? { rows: rows.slice(0, limit), next: rows[limit - 1]!.id } : { rows, next: undefined };
}

export function nextLink(path: string, filters: Record<string, string | undefined>, next: string | undefined): Html {
  return next ? html`<p><a href="${path}${queryString({ ...filters, starting_after: next })}">Older →</a></p>` : html``;
}

/** A date filter (YYYY-MM-DD) as the UTC day's bounds. */
export function dayBounds(day: string | undefined): { createdGte?: string; createdLte?: string } {
  if (!day || !/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(Date.parse(day))) return {};
  return { createdGte: `${day}T00:00:00.000Z`, createdLte: `${day}T23:59:59.999Z` };
}

/** Query values from a request, only the named ones, as strings. */
export function pick(query: unknown, names: readonly string[]): Record<string, string | undefined> {
  const q = (query ?? {}) as Record<string, unknown>;
  return Object.fromEntries(names.map((n) => [n, typeof q[n] === 'string' && q[n] !== '' ? (q[n] as string) : undefined]));
}

/** One of the allowed values, else undefined (a hand-edited URL cannot reach the query as anything else). */
export function oneOf<T extends string>(value: string | undefined, allowed: readonly T[]): T | undefined {
  return (allowed as readonly string[]).includes(value ?? '') ? (value as T) : undefined;
}
