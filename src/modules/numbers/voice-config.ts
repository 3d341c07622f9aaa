// A number's voice configuration: how its inbound calls are answered. One handler at a time:
// an answer webhook (voice_url, with voice_fallback_url), a stored flow (voice_flow), or an AI
// agent (agent_id); with none, a caller hears that the number is not set up and the call hangs
// up (call.flow.failed says why). Checked before anything is written.
import type { Mode, NumberRow } from '../../store/platform-tables.ts';
import { Problem, invalidField } from '../../platform/problems.ts';
import { assertWebhookUrlAllowed, type UrlPolicyConfig } from '../webhooks/url-policy.ts';
import { unheardSpeechErrors, validateFlow } from '../calls/flows/validate.ts';
import type { MediaPort } from '../../carriers/index.ts';
import { assertFlowUrlsAllowed } from '../calls/flows/flow-urls.ts';

type VoicePatch = { voice_url?: string | null | undefined; voice_fallback_url?: string | null | undefined; voice_flow?: unknown[] | null | undefined };

/** What the media that answers a mode's inbound calls can do; null when no carrier answers that mode here. */
export type InboundMedia = (mode: Mode) => MediaPort | null;

/**
 * The columns to set for the voice fields of a PATCH, each checked (URL policy, flow schema,
 * and what the mode's media can run: the same checks as an inline flow on POST /v1/calls).
 */
export async function checkVoiceConfig(patch: VoicePatch, mode: Mode, config: UrlPolicyConfig | undefined, media: InboundMedia = () => null): Promise<Partial<NumberRow>> {
  const set: Partial<NumberRow> = {};
  for (const field of ['voice_url', 'voice_fallback_url'] as const) {
    const value = patch[field];
    if (value === undefined) continue;
    if (value !== null) {
      if (!config) throw new Error('voice URLs need the webhook URL policy');
      await assertWebhookUrlAllowed(value, mode, config, field);
    }
    set[field] = value;
  }
  if (patch.voice_flow !== undefined) {
    if (patch.voice_flow === null) set.voice_flow = null;
    else {
      const checked = validateFlow(patch.voice_flow, 'voice_flow');
      if (!checked.ok) {
        throw new Problem('validation_failed', `voice_flow is not a valid flow: ${checked.errors.map((e) => `${e.field} ${e.message}`).join('; ')}.`, { errors: checked.errors });
      }
      // A speech gather a live server cannot hear would fail on every call: refused now, not then.
      const port = media(mode);
      const unheard = port ? unheardSpeechErrors(checked.verbs, port, 'voice_flow') : [];
      if (unheard.length > 0) {
        throw new Problem('validation_failed', `voice_flow cannot run on ${mode} calls here: ${unheard.map((e) => `${e.field} ${e.message}`).join('; ')}.`, { errors: unheard });
      }
      if (!config) throw new Error('voice flows need the webhook URL policy');
      await assertFlowUrlsAllowed(checked.verbs, mode, config, 'voice_flow');
      set.voice_flow = JSON.stringify(checked.verbs);
    }
  }
  return set;
}

/** A number answers calls one way: refuse a configuration with two handlers, naming the field to clear. */
export function assertOneVoiceHandler(row: Pick<NumberRow, 'agent_id' | 'voice_url' | 'voice_flow' | 'voice_fallback_url'>): void {
  const handlers = [row.voice_url ? 'voice_url' : null, row.voice_flow ? 'voice_flow' : null, row.agent_id ? 'agent_id' : null].filter((h): h is string => h !== null);
  if (handlers.length > 1) {
    throw invalidField(handlers[1]!, `cannot be set together with ${handlers[0]}: a number answers its calls one way. Set the other to null in the same request to switch.`, 'not_allowed');
  }
  if (row.voice_fallback_url && !row.voice_url && !row.voice_flow) {
    throw invalidField('voice_fallback_url', 'needs voice_url or voice_flow: it is asked when their flow webhooks fail.', 'not_allowed');
  }
}

/** How an inbound call to this number is answered. */
export type VoiceHandler =
  | { kind: 'url'; url: string; fallbackUrl: string | null }
  | { kind: 'flow'; verbs: unknown[]; fallbackUrl: string | null }
  | { kind: 'agent'; agentId: string }
  | { kind: 'none' };

export function voiceHandlerOf(row: NumberRow): VoiceHandler {
  if (row.voice_url) return { kind: 'url', url: row.voice_url, fallbackUrl: row.voice_fallback_url ?? null };
  if (row.voice_flow) return { kind: 'flow', verbs: JSON.parse(row.voice_flow) as unknown[], fallbackUrl: row.voice_fallback_url ?? null };
  if (row.agent_id) return { kind: 'agent', agentId: row.agent_id };
  return { kind: 'none' };
}
