// One way to say why something did not do what was asked, the same on calls, messages,
// recordings and ports: `failure` is null while all is well and, once the resource ends
// short of its goal (a busy call, an undelivered message, a recording that could not be
// processed, a port in exception or rejected), `{code, message, carrier_code}`.
import { Type, type Static } from 'typebox';

export const FailureSchema = Type.Object(
  {
    code: Type.String({ description: 'Stable snake_case reason, e.g. user_busy, carrier_rejected, processing_failed, wrong_pin.', examples: ['user_busy'] }),
    message: Type.String({ description: 'A sentence for people: what happened and, where it helps, what to do.', examples: ['The called party was busy.'] }),
    carrier_code: Type.Union([Type.String(), Type.Null()], {
      description: "The carrier's own code when a carrier gave one (e.g. the SIP status \"486\", an SMPP command_status); null otherwise (always null on the simulator).",
    }),
  },
  { $id: 'Failure', title: 'Failure' },
);

export type Failure = Static<typeof FailureSchema>;

export const NullableFailure = Type.Union([Type.Ref('Failure'), Type.Null()], {
  description: 'Why the resource did not do what was asked; null while it is fine (see docs/api.md, "Failures").',
});

export function failure(code: string, message: string, carrierCode: string | null = null): Failure {
  return { code, message, carrier_code: carrierCode };
}
