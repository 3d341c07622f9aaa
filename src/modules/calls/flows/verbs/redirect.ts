// `redirect`: the flow another URL answers replaces this one. The verb waits on its own
// webhook, so its log entry closes when the webhook answers.
import { Type } from 'typebox';
import { FlowUrl } from './common.ts';
import { defineVerb } from './verb.ts';

export const RedirectVerb = Type.Object({
  url: FlowUrl('Answers the flow that replaces this one (a signed POST).'),
}, { additionalProperties: false, description: 'Continue with the flow another URL answers.' });

export const redirect = defineVerb({
  name: 'redirect',
  schema: RedirectVerb,
  urls: (body) => [{ path: 'url', url: body.url }],
  async run(flow, { trx, call, state, log, clock }, body): Promise<void> {
    await flow.startFetch(trx, call, state, log, clock, { reason: 'redirect', url: body.url, fallback: false });
  },
  answered: (pending, answer) => ({ url: pending.url, status_code: answer.statusCode, ok: answer.ok }),
});
