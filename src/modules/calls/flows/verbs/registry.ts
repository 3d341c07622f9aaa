// Every flow verb, in the order the `Flow` schema (and the docs) list them. A verb is one
// file in this folder and one line here; nothing else names it: the schema, the validator,
// the URL policy check, the audio fetcher and the interpreter all read these definitions.
//
// Walk-through, with the smallest verb (hangup.ts):
//
//   export const HangupVerb = Type.Object({}, { additionalProperties: false, description: 'End the call.' });
//   export const hangup = defineVerb({
//     name: 'hangup',
//     schema: HangupVerb,                                     // published in the Flow schema
//     async run(flow, { trx, call, state, log, clock, now }) { // its steps, in the call's transaction
//       closeEntry(log, now, {});                             // its log entry: done at once
//       const saved = await saveFlow(trx, call, { ...state, op: null, pc: state.pc + 1, ended: ... }, log);
//       await flow.calls.endFromFlow(trx, saved, clock);      // end the call
//     },
//   });
//
// and `hangup,` in VERBS below. That is all: validate.ts now accepts `{"hangup": {}}`, the
// OpenAPI `Flow` lists it, GET /v1/calls/{id}/flow's log names it, and the interpreter, on
// reaching it, pushes its open log entry and calls `run`. The hooks of verb.ts say what a
// richer verb adds: `urls` (checked against the URL policy when a flow is saved), `audio`
// (fetched and cached before it runs), `op` (the media operation it runs, instead of `run`),
// `prepare` (just before the operation: record makes its recording), `logResult` and
// `finished` (events, and the action_url its result is posted to, `postsResult`), `install`
// (listeners: transfer waits on its call's transfer). Its state lives in the call's
// flow_state, like every verb's (state.ts).
import type { Static } from 'typebox';
import { agent } from './agent.ts';
import { dequeue } from './dequeue.ts';
import { conference } from './conference.ts';
import { dial } from './dial.ts';
import { enqueue } from './enqueue.ts';
import { gather } from './gather.ts';
import { hangup } from './hangup.ts';
import { leave } from './leave.ts';
import { monitor } from './monitor.ts';
import { pause } from './pause.ts';
import { play } from './play.ts';
import { record } from './record.ts';
import { redirect } from './redirect.ts';
import { say } from './say.ts';
import { stream } from './stream.ts';
import { transfer } from './transfer.ts';
import type { VerbDefinition } from './verb.ts';

export const VERBS = [
  say,
  play,
  pause,
  gather,
  redirect,
  record,
  dial,
  transfer,
  agent,
  enqueue,
  dequeue,
  leave,
  conference,
  monitor,
  stream,
  hangup,
] as const;

type Definition = (typeof VERBS)[number];
export type VerbName = Definition['name'];

/** One verb of a flow: an object with one key naming the verb. */
export type Verb = { [D in Definition as D['name']]: { [K in D['name']]: Static<D['schema']> } }[VerbName];

// Flow state (../state.ts) holds verbs without importing them (the verbs use it): their
// union is plugged in here.
declare module '../state.ts' {
  interface FlowVerbs {
    verb: Verb;
    name: VerbName;
  }
}

export const VERB_NAMES: VerbName[] = VERBS.map((v) => v.name);

const BY_NAME = new Map<string, VerbDefinition>(VERBS.map((v) => [v.name, v as unknown as VerbDefinition]));

/** The definition of a verb by its name (undefined for a name that is none, e.g. a fetch's `answer`). */
export function verbNamed(name: string): VerbDefinition | undefined {
  return BY_NAME.get(name);
}

/** A flow verb's name and body, and its definition. */
export function definitionOf(verb: Verb): { name: VerbName; body: any; def: VerbDefinition } {
  const name = Object.keys(verb)[0] as VerbName;
  return { name, body: (verb as Record<string, unknown>)[name], def: BY_NAME.get(name)! };
}
