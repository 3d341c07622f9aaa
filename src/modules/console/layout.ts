// The page shell: header with the account and sign-out, a sandbox banner for sandbox keys, and
// the navigation, which lists only the pages the session's key may read.
import type { FastifyReply } from 'fastify';
import { grants, type Scope } from '../../platform/scopes.ts';
import { html, type Html } from './html.ts';
import { csrfField } from './csrf.ts';
import type { ConsoleSession } from './sessions.ts';

interface NavItem { href: string; label: string; scope: Scope | null }

const NAV: NavItem[] = [
  { href: '/console', label: 'Overview', scope: null },
  { href: '/console/calls', label: 'Calls', scope: 'calls:read' },
  { href: '/console/queues', label: 'Queues', scope: 'calls:read' },
  { href: '/console/messages', label: 'Messages', scope: 'messages:read' },
  { href: '/console/numbers', label: 'Numbers', scope: 'numbers:read' },
  { href: '/console/ai', label: 'AI', scope: 'ai:read' },
  { href: '/console/analytics', label: 'Analytics', scope: null },
  { href: '/console/webhooks', label: 'Webhooks', scope: 'webhooks:read' },
  { href: '/console/keys', label: 'API keys', scope: 'keys:read' },
  { href: '/console/debugger', label: 'Debugger', scope: null },
];

export interface PageOptions {
  title: string;
  body: Html;
  /** The nav entry to mark as current. */
  current?: string;
  notice?: string | undefined;
  error?: string | undefined;
}

function head(title: string): Html {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Switchboard console</title><link rel="icon" href="data:,">
<link rel="stylesheet" href="/console/assets/console.css"><link rel="stylesheet" href="/console/assets/uPlot.min.css">
<script src="/console/assets/htmx.min.js" defer></script><script src="/console/assets/uPlot.iife.min.js" defer></script><script src="/console/assets/console.js" defer></script>
</head>`;
}

function messages(p: PageOptions): Html {
  return html`${p.notice ? html`<div class="notice" role="status">${p.notice}</div>` : ''}${p.error ? html`<div class="error" role="alert">${p.error}</div>` : ''}`;
}

export function signedInPage(session: ConsoleSession, p: PageOptions): Html {
  const nav = NAV.filter((item) => item.scope === null || grants(session.scopes, item.scope));
  return html`${head(p.title)}<body>
<header class="top"><span class="brand">Switchboard</span>
<span>${session.account.name} · <span class="muted">${session.mode}</span> · key ${session.keyName} (${session.keyRedacted})</span>
<form method="post" action="/console/sign-out">${csrfField(session.csrfToken)}<button class="link" type="submit">Sign out</button></form></header>
${session.mode === 'sandbox' ? html`<div class="sandbox-banner" data-testid="sandbox-banner">Sandbox: simulated calls and messages, nothing reaches a real phone.</div>` : ''}
<nav class="main">${nav.map((item) => html`<a href="${item.href}"${item.href === p.current ? html` aria-current="page"` : ''}>${item.label}</a>`)}</nav>
<main><h1>${p.title}</h1>${messages(p)}${p.body}</main></body></html>`;
}

export function signedOutPage(p: PageOptions): Html {
  return html`${head(p.title)}<body><header class="top"><span class="brand">Switchboard</span></header>
<main>${messages(p)}${p.body}</main></body></html>`;
}

export function sendHtml(reply: FastifyReply, page: Html, status = 200): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(page.text);
}
