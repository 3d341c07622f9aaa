// `record`: record the other party (a message) into a recording resource of its own, created
// just before the operation runs (call.recording.started) and stopped and processed when it
// ends (call.recording.stopped, then ready).
import { Type } from 'typebox';
import { FLOW_LIMITS } from './common.ts';
import { defineVerb, plainResult } from './verb.ts';

export const RecordVerb = Type.Object({
  max_length: Type.Optional(Type.Integer({ minimum: 1, maximum: FLOW_LIMITS.recordSeconds, default: FLOW_LIMITS.recordSeconds, description: 'Seconds at most.' })),
  silence_timeout: Type.Optional(Type.Number({ minimum: 0, maximum: 60, default: 5, description: 'Seconds of silence that end it; 0: silence never does.' })),
  finish_on_key: Type.Optional(Type.String({ pattern: '^[0-9*#]*$', maxLength: 12, default: '1234567890*#', description: 'Any of these keys ends it (not recorded); "" for none.' })),
  beep: Type.Optional(Type.Boolean({ default: true, description: 'A half-second beep first.' })),
  transcribe: Type.Optional(Type.Boolean({ default: false, description: 'Give the recording a transcript of what was said.' })),
}, { additionalProperties: false, description: 'Record the other party (a message): a normal recording resource, with its events.' });

export const record = defineVerb({
  name: 'record',
  schema: RecordVerb,
  op: (body) => ({
    kind: 'record',
    // The recording is created just before the operation runs (prepare fills these in).
    recordingId: '',
    format: { channels: 1, sampleRate: 8000 },
    maxSeconds: body.max_length ?? FLOW_LIMITS.recordSeconds,
    silenceTimeoutSeconds: body.silence_timeout ?? 5,
    finishOnKey: body.finish_on_key ?? '1234567890*#',
    beep: body.beep ?? true,
    transcribe: body.transcribe ?? false,
  }),
  async prepare(flow, { trx, call, clock }, op) {
    const recording = await flow.recordings().start(trx, call, clock);
    return { op: { ...op, recordingId: recording.id, format: recording.format } as typeof op, state: { recordingId: recording.id } };
  },
  logResult: (_body, result, state) => (result.kind === 'record'
    ? { recording_id: state.recordingId ?? null, reason: result.reason, duration_seconds: result.durationSeconds }
    : plainResult(result)),
  async finished(flow, { trx, call, state, clock }, _body, result) {
    if (result.kind === 'record' && state.recordingId) await flow.recordings().stop(trx, call, state.recordingId, clock);
  },
});
