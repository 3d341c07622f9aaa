import { Type } from 'typebox';
import { Timestamp } from '../../platform/schemas.ts';

export const SandboxClockSchema = Type.Object(
  {
    object: Type.Literal('sandbox_clock'),
    now: Timestamp,
    offset_seconds: Type.Number({ description: 'How far the sandbox is ahead of real time.' }),
    jobs_run: Type.Optional(Type.Integer({ description: 'On advance: how many due jobs ran before the answer.' })),
  },
  { $id: 'SandboxClock' },
);

export const AdvanceClockBody = Type.Union([
  Type.Object({ seconds: Type.Number({ exclusiveMinimum: 0, maximum: 366 * 86400, description: 'Move forward this many seconds.' }) }, { additionalProperties: false }),
  Type.Object({ to: Type.String({ format: 'date-time', description: 'Move forward to this RFC 3339 time.' }) }, { additionalProperties: false }),
], { description: 'Exactly one of seconds or to. Time only moves forward.' });
