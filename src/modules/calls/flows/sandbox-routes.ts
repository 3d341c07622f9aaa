// POST /v1/sandbox/calls/{id}/press and /say: play the other party of a sandbox call by hand.
import { Type } from 'typebox';
import type { App } from '../../../platform/app-type.ts';
import { IdParams, problemResponses } from '../../../platform/schemas.ts';
import type { SandboxFarEnd } from './far-end.ts';

export const PressBody = Type.Object({
  digits: Type.String({ minLength: 1, maxLength: 64, pattern: '^[0-9*#A-Dw]+$', description: 'Keys pressed in order (0-9, *, #, A-D; `w` waits half a second).', examples: ['12#'] }),
}, { additionalProperties: false });

export const SayBody = Type.Object({
  text: Type.String({ minLength: 1, maxLength: 1000, description: 'What the other party says; a gather listening for speech hears exactly this text.', examples: ['billing please'] }),
}, { additionalProperties: false });

export function farEndRoutes(app: App, farEnd: SandboxFarEnd): void {
  const tags = ['Sandbox'];
  const errors = problemResponses('not_found', 'mode_not_supported', 'call_not_in_progress');
  app.post('/v1/sandbox/calls/:id/press', {
    config: { scope: 'sandbox:write' },
    schema: { operationId: 'pressKeysOnSandboxCall', tags, params: IdParams, body: PressBody,
      summary: 'The other party of a sandbox call presses keys (DTMF)',
      description: 'A gather running on the call hears the keys at once (cutting its prompts when barge_in); otherwise they are ignored.',
      response: { 200: Type.Ref('Call'), ...errors } },
  }, async (request) => farEnd.press(request.auth.account.id, request.auth.mode, request.params.id, request.body.digits));
  app.post('/v1/sandbox/calls/:id/say', {
    config: { scope: 'sandbox:write' },
    schema: { operationId: 'speakOnSandboxCall', tags, params: IdParams, body: SayBody,
      summary: 'The other party of a sandbox call speaks',
      description: 'A gather listening for speech hears exactly this text (no recognition in the sandbox); the utterance ends speech_timeout after its last word.',
      response: { 200: Type.Ref('Call'), ...errors } },
  }, async (request) => farEnd.say(request.auth.account.id, request.auth.mode, request.params.id, request.body.text));
}
