// Fetching a flow from the customer's server (answer_url, a number's voice_url, a gather's
// action_url, redirect): a POST signed like every webhook (Standard Webhooks, the account's
// default secret of the mode), under the webhook URL policy, with a short timeout (a caller
// is waiting in silence) and a capped read. Whatever goes wrong becomes a named cause (and,
// for an invalid document, the JSON path of the first error) for call.flow.failed; nothing
// here throws for a bad answer.
import type * as Undici from 'undici';
import { lazyRequire } from '../../../platform/lazy-require.ts';
import type { Mode } from '../../../store/platform-tables.ts';
import type { Config } from '../../../config.ts';
import type { Clock } from '../../../platform/clock.ts';
import { checkUrlShape, guardedLookup } from '../../webhooks/url-policy.ts';
import { webhookHeaders } from '../../webhooks/signing.ts';
import { activeSecrets, type DefaultSecrets } from '../../webhooks/default-secrets.ts';
import type { SecretBox } from '../../../platform/secret-box.ts';
import { FLOW_LIMITS, type Verb } from './schema.ts';
import { validateFlow } from './validate.ts';
import { FLOW_FAILURE_CAUSES, type FlowFailure, type FlowFailureCause } from './flow-failure.ts';

/** Loaded on first use (see platform/lazy-require.ts). */
const undici = lazyRequire<typeof Undici>('undici');

export { FLOW_FAILURE_CAUSES, type FlowFailure, type FlowFailureCause };

export type FlowFetch = ({ ok: true; verbs: Verb[] } | ({ ok: false } & FlowFailure)) & { statusCode: number | null; latencyMs: number };

export class FlowWebhookClient {
  private readonly agents = new Map<string, Undici.Agent>();

  constructor(
    private readonly config: Config,
    private readonly secrets: { defaults: DefaultSecrets; box: SecretBox },
    private readonly clock: Clock,
  ) {}

  /** One keep-alive pool per mode and protocol, its DNS answers checked by the URL policy (flow-audio.ts fetches through it too). */
  agentFor(mode: Mode, protocol: string): Undici.Agent {
    const key = `${mode}:${protocol}`;
    let agent = this.agents.get(key);
    if (!agent) {
      const timeout = this.config.flowWebhookTimeoutMs;
      agent = new (undici().Agent)({
        keepAliveTimeout: 30_000, maxRedirections: 0, headersTimeout: timeout, bodyTimeout: timeout,
        connect: { timeout, lookup: guardedLookup(mode, protocol, this.config) as any },
      });
      this.agents.set(key, agent);
    }
    return agent;
  }

  /** POSTs `payload` to `url` (signed, id `requestId`) and reads a flow from the answer. */
  async fetch(url: string, accountId: string, mode: Mode, requestId: string, payload: unknown): Promise<FlowFetch> {
    const started = performance.now();
    const latency = () => Math.round(performance.now() - started);
    const body = JSON.stringify(payload);
    const secretRow = await this.secrets.defaults.ensure(accountId, mode);
    const now = this.clock.now();
    const headers = webhookHeaders(requestId, Math.floor(now.getTime() / 1000), body, activeSecrets(this.secrets.box, secretRow, now.toISOString()));
    let statusCode: number | null = null;
    let text: string;
    try {
      const parsed = checkUrlShape(url, mode, this.config);
      const res = await undici().request(parsed, {
        method: 'POST', headers: { ...headers, accept: 'application/json' }, body,
        dispatcher: this.agentFor(mode, parsed.protocol), signal: AbortSignal.timeout(this.config.flowWebhookTimeoutMs),
      });
      statusCode = res.statusCode;
      const read = await readCapped(res.body, FLOW_LIMITS.bytes);
      if (statusCode < 200 || statusCode >= 300) {
        return fail('http_status', `${url} answered ${statusCode}; a flow needs a 2xx answer whose body is the flow (a JSON array of verbs).`, statusCode);
      }
      if (read === null) return fail('invalid_flow', `${url} answered more than ${FLOW_LIMITS.bytes} bytes; a flow is at most that long.`, statusCode, 'flow');
      text = read;
    } catch (err) {
      const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string } };
      if (e.name === 'TimeoutError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT' || e.code === 'UND_ERR_CONNECT_TIMEOUT') {
        return fail('timeout', `${url} did not answer within ${this.config.flowWebhookTimeoutMs} ms.`, statusCode);
      }
      return fail('unreachable', `${url} could not be reached: ${(e.code ?? e.cause?.code ?? '') + ' ' + (e.message ?? '')}`.trim().slice(0, 500), statusCode);
    }
    let document: unknown;
    try {
      document = JSON.parse(text);
    } catch {
      return fail('invalid_json', `${url} answered a body that is not JSON; it must be the flow, a JSON array of verbs.`, statusCode);
    }
    if (Array.isArray(document) && document.length === 0) return fail('empty_flow', `${url} answered an empty flow; answer at least one verb (e.g. [{"hangup": {}}]).`, statusCode, 'flow');
    const checked = validateFlow(document);
    if (!checked.ok) {
      const first = checked.errors[0]!;
      return fail('invalid_flow', `${url} answered an invalid flow: ${checked.errors.map((e) => `${e.field} ${e.message}`).join('; ')}.`, statusCode, first.field);
    }
    return { ok: true, verbs: checked.verbs, statusCode, latencyMs: latency() };

    function fail(cause: FlowFailureCause, detail: string, code: number | null, field: string | null = null): FlowFetch {
      return { ok: false, cause, detail, statusCode: code, field, latencyMs: latency() };
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.agents.values()].map((a) => a.close()));
    this.agents.clear();
  }
}

/** The body as text, or null when it is longer than `limit` bytes (the connection is dropped). */
async function readCapped(body: AsyncIterable<Buffer> & { destroy(): void }, limit: number): Promise<string | null> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.length;
    if (total > limit) {
      body.destroy();
      return null;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
