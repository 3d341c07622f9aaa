// The URLs a flow document makes Switchboard fetch (a gather's or dial's action_url, a redirect's url, a play's audio),
// each with the JSON path users read in problems (`flow[2].gather.action_url`). A stored or
// inline flow follows the webhook URL policy when it is saved, like every other URL we keep;
// the fetch checks again when it connects (flow-webhook.ts).
import type { Mode } from '../../../store/platform-tables.ts';
import { assertWebhookUrlAllowed, type UrlPolicyConfig } from '../../webhooks/url-policy.ts';
import type { Verb } from './schema.ts';

export function flowUrls(verbs: Verb[], root = 'flow'): { field: string; url: string }[] {
  const found: { field: string; url: string }[] = [];
  verbs.forEach((verb, i) => {
    if ('redirect' in verb) found.push({ field: `${root}[${i}].redirect.url`, url: verb.redirect.url });
    if ('gather' in verb && verb.gather.action_url !== undefined) found.push({ field: `${root}[${i}].gather.action_url`, url: verb.gather.action_url });
    if ('play' in verb) found.push({ field: `${root}[${i}].play.url`, url: verb.play.url });
    if ('gather' in verb) {
      (verb.gather.prompts ?? []).forEach((p, j) => {
        if ('play' in p) found.push({ field: `${root}[${i}].gather.prompts[${j}].play.url`, url: (p as { play: { url: string } }).play.url });
      });
    }
    if ('dial' in verb && verb.dial.action_url !== undefined) found.push({ field: `${root}[${i}].dial.action_url`, url: verb.dial.action_url });
  });
  return found;
}

/** Refuses (422 webhook_url_not_allowed, naming the path) a flow that points at a URL the policy forbids. */
export async function assertFlowUrlsAllowed(verbs: Verb[], mode: Mode, config: UrlPolicyConfig, root = 'flow'): Promise<void> {
  for (const { field, url } of flowUrls(verbs, root)) await assertWebhookUrlAllowed(url, mode, config, field);
}
