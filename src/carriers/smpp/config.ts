// The `smpp` section of the carriers file: one entry per bind to an SMSC. Defaults follow
// what most SMSCs expect; the ones SMSCs disagree on (GSM-7's data_coding, UDH versus
// message_payload) are settings, documented in docs/live-messaging.md.
import { Type, type Static } from 'typebox';
import { Secret } from '../config/secrets.ts';

export const LinkName = Type.String({ pattern: '^[a-z0-9][a-z0-9_-]{0,62}$', description: 'Unique across the carriers file; numbers are bound to a link by this name.' });

export const SmppBindConfig = Type.Object({
  name: LinkName,
  host: Type.String({ minLength: 1 }),
  port: Type.Integer({ minimum: 1, maximum: 65535, default: 2775 }),
  tls: Type.Boolean({ default: false, description: 'SMPP over TLS (often port 3550).' }),
  tls_ca_file: Type.Optional(Type.String({ minLength: 1, description: 'PEM file of the CA that signed the SMSC certificate, when not a public one.' })),
  system_id: Type.String({ minLength: 1, maxLength: 15 }),
  password: Secret('The bind password (at most 8 characters in SMPP 3.4).'),
  system_type: Type.String({ maxLength: 12, default: '' }),
  bind: Type.Union([Type.Literal('transceiver'), Type.Literal('transmitter_receiver')], { default: 'transceiver' }),
  window: Type.Integer({ minimum: 1, maximum: 1000, default: 10, description: 'submit_sm in flight without an answer.' }),
  max_per_second: Type.Number({ exclusiveMinimum: 0, maximum: 100000, default: 50, description: 'Throughput cap of this bind (submit_sm per second).' }),
  enquire_link_seconds: Type.Number({ minimum: 1, maximum: 3600, default: 30 }),
  response_timeout_seconds: Type.Number({ minimum: 1, maximum: 300, default: 30 }),
  reconnect_min_seconds: Type.Number({ minimum: 0.05, maximum: 600, default: 1 }),
  reconnect_max_seconds: Type.Number({ minimum: 0.05, maximum: 3600, default: 60 }),
  gsm7_data_coding: Type.Union([Type.Literal(0), Type.Literal(1)], { default: 0, description: 'data_coding for GSM-7 text: 0 (SMSC default alphabet) or 1 (IA5). SMSCs disagree.' }),
  long_messages: Type.Union([Type.Literal('udh'), Type.Literal('message_payload')], { default: 'udh' }),
  source_ton: Type.Integer({ minimum: 0, maximum: 6, default: 1 }),
  source_npi: Type.Integer({ minimum: 0, maximum: 18, default: 1 }),
  dest_ton: Type.Integer({ minimum: 0, maximum: 6, default: 1 }),
  dest_npi: Type.Integer({ minimum: 0, maximum: 18, default: 1 }),
}, { additionalProperties: false });
export type SmppBindConfig = Static<typeof SmppBindConfig>;
