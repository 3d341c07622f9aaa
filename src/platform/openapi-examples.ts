// Realistic example values for request fields and parameters, so generated collections and
// SDK docs carry bodies a person would send. A field's own `examples` (in its TypeBox
// schema) wins; then the table below by field name; then a value derived from the schema
// (its default, first enum value, format or bounds). test/platform/openapi.test.ts checks
// that every request field ends up with one and that each example is valid for its schema.
type Schema = Record<string, any>;

/** Example ids per resource; the suffix is a valid TypeID. */
const SUFFIX = '01jd8x0v6kf5b9w3t2q1r0p9n8';
export const exampleId = (prefix: string) => `${prefix}_${SUFFIX}`;

/** By field name, whatever the endpoint; `<operationId>.<field>` entries override them. */
const BY_NAME: Record<string, unknown> = {
  from: '+14155550100',
  to: '+14155550123',
  phone_number: '+14155550100',
  transfer_number: '+14155550199',
  record: true,
  webhook_url: 'https://example.com/webhooks/switchboard',
  url: 'https://example.com/webhooks/switchboard',
  source_url: 'https://example.com/help/opening-hours',
  timeout: 30,
  time_limit: 3600,
  metadata: { order_id: '4711' },
  body: 'Your table for two is booked for 7 pm.',
  channel: 'sms',
  media_urls: ['https://example.com/media/menu.jpg'],
  name: 'Production server',
  scopes: ['calls:write', 'messages:write'],
  allowed_ips: ['203.0.113.0/24'],
  expires_in_seconds: 86_400,
  description: 'Order system',
  events: ['call.*', 'message.delivered'],
  enabled: true,
  friendly_name: 'Front desk',
  agent_id: exampleId('agent'),
  number_ids: [exampleId('num')],
  call_id: exampleId('call'),
  webhook_id: exampleId('wh'),
  resource_id: exampleId('call'),
  starting_after: exampleId('call'),
  greeting: 'Thanks for calling Luigi\'s. How can I help?',
  instructions: 'Answer questions about opening hours and bookings; transfer anything else.',
  after_hours_message: 'We are closed now; we open at 11 am.',
  language: 'en-US',
  voice: 'alloy',
  timezone: 'America/New_York',
  title: 'Opening hours',
  content: 'We are open Monday to Saturday, 11 am to 10 pm.',
  content_type: 'text/plain',
  account_number: '123456789',
  authorized_name: 'Ada Lovelace',
  pin: '1234',
  losing_carrier: 'Acme Telecom',
  street: '1 Market St',
  city: 'San Francisco',
  region: 'CA',
  postal_code: '94105',
  country: 'US',
  area_code: '415',
  contains: '555',
  since: '2026-01-15T09:00:00.000Z',
  until: '2026-01-15T10:00:00.000Z',
  created_gte: '2026-01-01T00:00:00.000Z',
  created_lte: '2026-01-31T23:59:59.999Z',
  score_gte: 0.5,
  score_lte: 1,
  limit: 20,
  caller_script: ['I would like to book a table for two tonight.'],
  event_type: 'call.completed',
  'sendMessage.template': { name: 'booking_confirmation', language: 'en_US', variables: ['Ada', '7 pm'] },
  'createAgent.name': 'Front desk receptionist',
  'updateAgent.name': 'Front desk receptionist',
  'createKey.name': 'Production server',
  'listEvents.type': 'call.completed',
  'searchAvailableNumbers.type': 'local',
};

function fromSchema(schema: Schema): unknown {
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum)) return schema.enum.find((v: unknown) => v !== null);
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  switch (type) {
    case 'string':
      if (schema.format === 'date-time') return '2026-01-15T09:30:00.000Z';
      if (schema.format === 'uri') return 'https://example.com/';
      if (schema.format === 'email') return 'ada@example.com';
      return 'example'.slice(0, Math.max(schema.maxLength ?? 7, 1)).padEnd(schema.minLength ?? 0, 'x');
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return true;
    case 'array': {
      const item = schema.items ? exampleFor('', schema.items) : 'example';
      return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => item);
    }
    case 'object':
      return Object.fromEntries(Object.entries<Schema>(schema.properties ?? {})
        .filter(([name]) => (schema.required ?? []).includes(name))
        .map(([name, s]) => [name, exampleFor(name, s)]));
    default: {
      const form = (schema.anyOf ?? schema.oneOf)?.[0];
      return form ? exampleFor('', form) : null;
    }
  }
}

/** An example for one field: its own, the table's, or one derived from its schema. */
export function exampleFor(name: string, schema: Schema, operationId?: string): unknown {
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.example !== undefined) return schema.example;
  const known = operationId && `${operationId}.${name}` in BY_NAME ? BY_NAME[`${operationId}.${name}`] : BY_NAME[name];
  if (known !== undefined && fits(known, schema)) return known;
  return fromSchema(schema);
}

/** A cheap structural check so a table entry is not used where the schema wants another shape. */
function fits(value: unknown, schema: Schema): boolean {
  if (Array.isArray(schema.enum)) return schema.enum.includes(value);
  if (schema.format === 'date-time' && !(typeof value === 'string' && /^\d{4}-\d\d-\d\dT/.test(value))) return false;
  if (schema.pattern && !(typeof value === 'string' && new RegExp(schema.pattern).test(value))) return false;
  const types = [schema.type].flat().filter(Boolean) as string[];
  if (types.length === 0) return true;
  const actual = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  return types.some((t) => t === actual || (t === 'integer' && Number.isInteger(value)) || (t === 'number' && actual === 'number'));
}
