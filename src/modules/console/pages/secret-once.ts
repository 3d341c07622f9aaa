// A secret shown once, on the page that answered the POST which made it (never in a URL, never
// stored in a readable form): a copy button, and a warning that it cannot be shown again.
import { html, type Html } from '../html.ts';

export function secretOnce(label: string, secret: string): Html {
  return html`<div class="notice" role="status" data-testid="secret-once"><p><strong>${label}</strong> Copy it now: it will not be shown again.</p>
<p class="secret" id="secret-value" data-testid="secret-value">${secret}</p>
<button type="button" data-copy-from="secret-value">Copy</button></div>`;
}
