import { Type } from 'typebox';
import { NullableTimestamp, Timestamp } from '../../platform/schemas.ts';

export const LimitsSchema = Type.Object({
  requests_per_minute: Type.Integer({ description: 'Sustained request rate; the token bucket also holds this many (the burst).' }),
  concurrent_calls: Type.Union([Type.Integer(), Type.Null()], { description: 'Calls queued, ringing or in progress at once; null = unlimited.' }),
});

export const AccountSchema = Type.Object(
  {
    id: Type.String({ examples: ['acct_01jd8x0v6kf5b9w3t2q1r0p9n8'] }),
    object: Type.Literal('account'),
    name: Type.String(),
    plan: Type.Union([Type.Literal('trial'), Type.Literal('growth'), Type.Literal('scale'), Type.Literal('enterprise')]),
    trial_ends_at: NullableTimestamp,
    limits: LimitsSchema,
    created_at: Timestamp,
  },
  { $id: 'Account' },
);

export const AccountWithUsageSchema = Type.Object({
  id: Type.String(),
  object: Type.Literal('account'),
  name: Type.String(),
  plan: Type.String(),
  trial_ends_at: NullableTimestamp,
  trial_expired: Type.Boolean(),
  limits: LimitsSchema,
  mode: Type.Union([Type.Literal('sandbox'), Type.Literal('live')], { description: 'The mode of the key that made this request.' }),
  usage: Type.Object({
    requests_remaining: Type.Integer({ description: 'Requests left in the rate-limit bucket of this mode.' }),
    rate_limit_reset_seconds: Type.Integer(),
    concurrent_calls: Type.Integer({ description: 'Calls of this mode now queued, ringing or in progress.' }),
  }),
  created_at: Timestamp,
});
