import { Type } from 'typebox';
import { E164, NullableTimestamp, Timestamp } from '../../platform/schemas.ts';
import { Capability, WebhookUrl } from '../numbers/schema.ts';
import { PORT_STATUSES } from './states.ts';

const PortStatus = Type.Union(PORT_STATUSES.map((s) => Type.Literal(s)));

const ServiceAddress = Type.Object(
  {
    street: Type.String({ minLength: 1, maxLength: 200 }),
    city: Type.String({ minLength: 1, maxLength: 100 }),
    region: Type.String({ minLength: 1, maxLength: 100, description: 'State or province.' }),
    postal_code: Type.String({ minLength: 1, maxLength: 20 }),
    country: Type.String({ pattern: '^[A-Z]{2}$' }),
  },
  { additionalProperties: false, description: 'The service address on file with the losing carrier.' },
);

export const PortSchema = Type.Object(
  {
    id: Type.String({ examples: ['port_01jd8x0v6kf5b9w3t2q1r0p9n8'] }),
    object: Type.Literal('port'),
    mode: Type.Union([Type.Literal('sandbox'), Type.Literal('live')]),
    status: PortStatus,
    phone_numbers: Type.Array(Type.Object({
      phone_number: E164,
      number_id: Type.String({ description: 'The number being ported (status porting, then active once ported).' }),
      status: Type.Union([Type.Literal('active'), Type.Literal('porting'), Type.Literal('released')]),
      temporary_number: Type.Union([Type.Object({ id: Type.String(), phone_number: E164 }), Type.Null()]),
    })),
    capabilities: Type.Array(Capability),
    losing_carrier: Type.String(),
    account_number: Type.String(),
    authorized_name: Type.String(),
    service_address: ServiceAddress,
    webhook_url: Type.Union([Type.String(), Type.Null()]),
    foc_date: Type.Union([Timestamp, Type.Null()], { description: 'Firm order commitment: when the numbers move. Set once foc_scheduled.' }),
    exception: Type.Union([Type.Object({ code: Type.String(), detail: Type.String() }), Type.Null()]),
    rejection_reason: Type.Union([Type.String(), Type.Null()]),
    failure: Type.Union([Type.Ref('Failure'), Type.Null()], {
      description: 'In exception: what to fix (code and message as in `exception`); rejected: code rejected_by_losing_carrier, message = rejection_reason. Null otherwise.',
    }),
    submitted_at: Timestamp,
    foc_scheduled_at: NullableTimestamp,
    completed_at: NullableTimestamp,
    canceled_at: NullableTimestamp,
    rejected_at: NullableTimestamp,
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Port' },
);

export const CreatePortBody = Type.Object(
  {
    phone_numbers: Type.Array(E164, { minItems: 1, maxItems: 50, uniqueItems: true }),
    losing_carrier: Type.String({ minLength: 1, maxLength: 100 }),
    account_number: Type.String({ minLength: 1, maxLength: 50, description: 'The account number with the losing carrier.' }),
    pin: Type.String({ minLength: 1, maxLength: 20, description: 'The port-out PIN from the losing carrier. Never returned.' }),
    authorized_name: Type.String({ minLength: 1, maxLength: 100 }),
    service_address: ServiceAddress,
    capabilities: Type.Optional(Type.Array(Capability, { minItems: 1, uniqueItems: true, description: 'Of the ported and temporary numbers; default voice, sms, mms.' })),
    webhook_url: Type.Optional(WebhookUrl),
  },
  { additionalProperties: false },
);

export const UpdatePortBody = Type.Object(
  {
    losing_carrier: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    account_number: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
    pin: Type.Optional(Type.String({ minLength: 1, maxLength: 20 })),
    authorized_name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    service_address: Type.Optional(ServiceAddress),
  },
  { additionalProperties: false, description: 'Fixes an order in `exception` and resubmits it.' },
);

export const PortListQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Page size, 1 to 100.' }),
  starting_after: Type.Optional(Type.String({ maxLength: 64, description: 'The next_cursor of the previous page.' })),
  status: Type.Optional(PortStatus),
});
