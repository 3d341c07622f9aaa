import { Type } from 'typebox';
import { NullableTimestamp, Timestamp } from '../../platform/schemas.ts';
import { ALL_SCOPES } from '../../platform/scopes.ts';

const Scope = Type.Unsafe<string>({ type: 'string', enum: ALL_SCOPES, description: '"*" or <resource>:read / <resource>:write; write includes read.' });
const Cidr = Type.String({ description: 'An IPv4 or IPv6 address or CIDR range, e.g. 203.0.113.0/24 or 2001:db8::/32.', maxLength: 64 });

export const ApiKeySchema = Type.Object(
  {
    id: Type.String({ examples: ['key_01jd8x0v6kf5b9w3t2q1r0p9n8'] }),
    object: Type.Literal('api_key'),
    name: Type.String(),
    mode: Type.Union([Type.Literal('sandbox'), Type.Literal('live')]),
    prefix: Type.String(),
    last4: Type.String(),
    redacted: Type.String({ description: 'Prefix and last four characters; the secret itself is shown only once.' }),
    scopes: Type.Array(Type.String()),
    allowed_ips: Type.Array(Type.String(), { description: 'Empty means any address.' }),
    status: Type.Union([Type.Literal('active'), Type.Literal('revoked'), Type.Literal('expired')]),
    expires_at: NullableTimestamp,
    rotated_from: Type.Union([Type.String(), Type.Null()]),
    created_at: Timestamp,
    revoked_at: NullableTimestamp,
  },
  { $id: 'ApiKey' },
);

export const ApiKeyWithSecretSchema = Type.Intersect([
  Type.Ref('ApiKey'),
  Type.Object({ secret: Type.String({ description: 'The key itself. Shown only in this response: store it now.' }) }),
]);

export const CreateKeyBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    scopes: Type.Optional(Type.Array(Scope, { minItems: 1, maxItems: 40, description: 'Default: the scopes of the key making the request. Never empty; "*" only when asked for. Only scopes the calling key holds can be granted.' })),
    allowed_ips: Type.Optional(Type.Array(Cidr, { maxItems: 100 })),
  },
  { additionalProperties: false },
);

export const UpdateKeyBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    scopes: Type.Optional(Type.Array(Scope, { minItems: 1, maxItems: 40 })),
    allowed_ips: Type.Optional(Type.Array(Cidr, { maxItems: 100 })),
  },
  { additionalProperties: false },
);

export const RotateKeyBody = Type.Object(
  {
    expires_in_seconds: Type.Optional(Type.Integer({
      minimum: 0, maximum: 30 * 86400,
      description: 'How long the old key keeps working; default 86400 (24 h); 0 ends it at once.',
    })),
  },
  { additionalProperties: false },
);

export const RotatedKeySchema = Type.Object({
  key: ApiKeyWithSecretSchema,
  previous_key: Type.Ref('ApiKey'),
});
