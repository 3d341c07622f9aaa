// What several verbs' schemas share: the bounds of a flow and the field shapes more than one
// verb uses. No verb lives here (each has its own file beside this one).
import { Type } from 'typebox';

/** Bounds of one flow document, and of the webhooks a call may chain. */
export const FLOW_LIMITS = {
  /** Flow webhooks answered in a row without a verb that plays, gathers or dials finishing between. */
  hops: 10,
  verbs: 100,
  /** Serialised size of one document. */
  bytes: 64 * 1024,
  sayChars: 4000,
  loop: 10,
  pauseSeconds: 600,
  /** Prompts nested in one gather. */
  prompts: 10,
  gatherTimeoutSeconds: 60,
  numDigits: 64,
  hints: 50,
  /** dial: seconds the dialled number may ring, and seconds the bridge may last. */
  dialRingSeconds: 120,
  dialTimeLimitSeconds: 14_400,
  /** record: the longest recording one verb makes. */
  recordSeconds: 3600,
} as const;

export const Loop = Type.Integer({ minimum: 1, maximum: FLOW_LIMITS.loop, default: 1, description: 'How many times to repeat it.' });

/** A URL Switchboard POSTs to (signed like every webhook) for the next flow. */
export const FlowUrl = (description: string) => Type.String({ format: 'uri', maxLength: 2048, description, examples: ['https://example.com/voice/menu'] });

export const Phone = (description: string) => Type.String({ pattern: '^\\+[1-9][0-9]{6,14}$', description: `${description} E.164, e.g. +14155550100.`, examples: ['+14155550100'] });
