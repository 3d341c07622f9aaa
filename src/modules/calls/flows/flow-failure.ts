// Why a flow could not go on (call.flow.failed's cause). A leaf: the fetcher (flow-webhook.ts)
// produces these and the verbs (verbs/verb.ts) apologise with them, without knowing each other.
export const FLOW_FAILURE_CAUSES = ['timeout', 'unreachable', 'http_status', 'invalid_json', 'invalid_flow', 'empty_flow', 'redirect_loop', 'no_voice_config', 'unsupported_verb'] as const;
export type FlowFailureCause = (typeof FLOW_FAILURE_CAUSES)[number];

export interface FlowFailure {
  cause: FlowFailureCause;
  detail: string;
  statusCode: number | null;
  /** invalid_flow: the JSON path of the first error, e.g. `flow[2].gather.num_digits`. */
  field: string | null;
}
