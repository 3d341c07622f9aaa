// The URLs a flow document makes Switchboard fetch (each verb's `urls`: a gather's or dial's
// action_url, a redirect's url, a play's audio), each with the JSON path users read in
// problems (`flow[2].gather.action_url`). A stored or inline flow follows the webhook URL
// policy when it is saved, like every other URL we keep; the fetch checks again when it
// connects (flow-webhook.ts).
import type { Mode } from '../../../store/platform-tables.ts';
import { assertWebhookUrlAllowed, type UrlPolicyConfig } from '../../webhooks/url-policy.ts';
import { definitionOf, type Verb } from './verbs/registry.ts';

export function flowUrls(verbs: Verb[], root = 'flow'): { field: string; url: string }[] {
  return verbs.flatMap((verb, i) => {
    const { name, body, def } = definitionOf(verb);
    return (def.urls?.(body) ?? []).map(({ path, url }) => ({ field: `${root}[${i}].${name}.${path}`, url }));
  });
}

/** Refuses (422 webhook_url_not_allowed, naming the path) a flow that points at a URL the policy forbids. */
export async function assertFlowUrlsAllowed(verbs: Verb[], mode: Mode, config: UrlPolicyConfig, root = 'flow'): Promise<void> {
  for (const { field, url } of flowUrls(verbs, root)) await assertWebhookUrlAllowed(url, mode, config, field);
}
