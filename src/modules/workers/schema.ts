// The workers contract (TypeBox): the Worker resource, the bodies that make and change one,
// its list's filters, and the SIP credentials answer (shown once).
import { Type } from 'typebox';
import { E164, PageQuery, Timestamp } from '../../platform/schemas.ts';
import { WORKER_STATUSES } from './tables.ts';

export const WORKER_LIMITS = {
  skills: 50,
  ringTimeoutSeconds: { min: 5, max: 120, default: 20 },
  wrapUpSeconds: { max: 3600, default: 10 },
} as const;

const Skill = Type.String({ minLength: 1, maxLength: 40, pattern: '^[a-z0-9][a-z0-9_.-]*$', description: 'Lower case letters, digits, `_`, `.`, `-`.', examples: ['spanish'] });
const Skills = Type.Array(Skill, { maxItems: WORKER_LIMITS.skills, description: 'What the worker can handle; a queue\'s required skills must all be here. Stored sorted, without duplicates.' });
const Name = Type.String({ minLength: 1, maxLength: 100, examples: ['Alice Smith'] });

/** A SIP user name: what the softphone registers as. Unique across Switchboard (a REGISTER names only the user). */
export const SipUser = Type.String({ minLength: 3, maxLength: 64, pattern: '^[a-z0-9][a-z0-9._-]*$', description: 'The softphone\'s SIP user name (lower case letters, digits, `.`, `_`, `-`), unique across this Switchboard: prefix it with your company, e.g. `acme.alice`.', examples: ['acme.alice'] });
const SipUri = Type.String({ maxLength: 256, pattern: '^sips?:[^@\\s<>"]+@[^@\\s<>"]+$', description: 'A SIP URI, e.g. sip:alice@pbx.example.com or sip:alice@pbx.example.com:5062;transport=tcp (live mode: dialled directly, over no trunk; its host must be a public address unless the server allows private ones. Sandbox: answers like an ordinary number).', examples: ['sip:alice@pbx.example.com'] });
const Reach = Type.Union([
  E164,
  SipUri,
  Type.Object({ sip_user: SipUser }, { additionalProperties: false, title: 'WorkerSoftphone', description: 'A softphone registered to Switchboard with this worker\'s SIP credentials.' }),
], { description: 'Where the worker is rung: a phone number (in the sandbox, a magic number decides how it answers), a SIP URI (dialled directly), or `{"sip_user": "..."}`, a softphone registered to Switchboard.' });

const RingTimeout = Type.Integer({ minimum: WORKER_LIMITS.ringTimeoutSeconds.min, maximum: WORKER_LIMITS.ringTimeoutSeconds.max, description: `Seconds an offered call rings the worker before it counts as missed. Default ${WORKER_LIMITS.ringTimeoutSeconds.default}.` });
const WrapUp = Type.Integer({ minimum: 0, maximum: WORKER_LIMITS.wrapUpSeconds.max, description: `Seconds the worker stays in wrap_up after a call before it is available again (0: at once). Default ${WORKER_LIMITS.wrapUpSeconds.default}.` });
const SettableStatus = Type.Union([Type.Literal('available'), Type.Literal('offline')], { description: 'available or offline; busy and wrap_up are set by Switchboard around calls.' });

export const WorkerSchema = Type.Object({
  id: Type.String({ examples: ['wrk_01jd8x0v6kf5b9w3t2q1r0p9n8'] }),
  object: Type.Literal('worker'),
  mode: Type.Union([Type.Literal('sandbox'), Type.Literal('live')]),
  name: Type.String(),
  skills: Type.Array(Type.String()),
  status: Type.Union(WORKER_STATUSES.map((s) => Type.Literal(s)), { description: 'available: may be offered callers; busy: on a call (set by Switchboard); wrap_up: after a call, for wrap_up_seconds; offline.' }),
  reach: Reach,
  ring_timeout_seconds: Type.Integer(),
  wrap_up_seconds: Type.Integer(),
  last_idle_at: Type.Union([Timestamp, Type.Null()], { description: 'When the worker last became available; routing offers the longest idle worker first (null: never available yet).' }),
  current_call_id: Type.Union([Type.String(), Type.Null()], { description: 'The call the worker is on while busy.' }),
  offer: Type.Union([Type.Object({
    call_id: Type.String({ description: 'The call ringing the worker.' }),
    caller_call_id: Type.Union([Type.String(), Type.Null()], { description: 'The waiting caller it offers.' }),
    queue_id: Type.Union([Type.String(), Type.Null()]),
  }, { title: 'WorkerOffer' }), Type.Null()], { description: 'The caller being offered to the worker now (its phone is ringing); null when none.' }),
  status_changed_at: Timestamp,
  sip_credentials_created_at: Type.Union([Timestamp, Type.Null()], { description: 'When the softphone\'s current SIP credentials were issued (null: none).' }),
  registered: Type.Boolean({ description: 'The softphone (reach {"sip_user": ...}) has a registration that has not lapsed; live routing offers callers to a softphone worker only then. Always false for other reaches.' }),
  registrations: Type.Array(Type.Object({
    contact: Type.String({ description: 'The Contact URI the softphone registered.', examples: ['sip:alice@192.168.1.20:5062'] }),
    source: Type.String({ description: 'Transport, address and port the REGISTER came from (calls go there when the Contact is behind NAT).', examples: ['udp:203.0.113.7:40312'] }),
    expires_at: Timestamp,
    user_agent: Type.Union([Type.String(), Type.Null()], { description: 'The softphone\'s User-Agent header.' }),
  }, { title: 'WorkerRegistration' }), { description: 'The softphone\'s live registrations, the most recently refreshed first (that one is rung).' }),
  created_at: Timestamp,
  updated_at: Timestamp,
}, { $id: 'Worker' });

export const CreateWorkerBody = Type.Object({
  name: Name,
  skills: Type.Optional(Skills),
  reach: Reach,
  status: Type.Optional(SettableStatus),
  ring_timeout_seconds: Type.Optional(RingTimeout),
  wrap_up_seconds: Type.Optional(WrapUp),
}, { additionalProperties: false, description: 'A new worker is offline unless `status` says available.' });

export const UpdateWorkerBody = Type.Object({
  name: Type.Optional(Name),
  skills: Type.Optional(Skills),
  reach: Type.Optional(Reach),
  status: Type.Optional(SettableStatus),
  ring_timeout_seconds: Type.Optional(RingTimeout),
  wrap_up_seconds: Type.Optional(WrapUp),
}, { additionalProperties: false, description: 'A worker in wrap_up may be made available early; a busy worker cannot go offline until its call ends.' });

export const WorkerListQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(Type.Union(WORKER_STATUSES.map((s) => Type.Literal(s)), { description: 'Only workers in this status.' })),
  skill: Type.Optional(Type.String({ maxLength: 40, pattern: '^[a-z0-9][a-z0-9_.-]*$', description: 'Only workers with this skill.' })),
}, { additionalProperties: false });

export const SipCredentialsSchema = Type.Object({
  object: Type.Literal('sip_credentials'),
  worker_id: Type.String(),
  username: Type.String({ description: 'The SIP user name (the worker\'s reach.sip_user).' }),
  password: Type.String({ description: 'Shown once: Switchboard keeps only its digest (HA1). A new POST replaces it.' }),
  realm: Type.String({ description: 'The digest realm Switchboard challenges with.' }),
  created_at: Timestamp,
}, { $id: 'SipCredentials' });

export const DeletedWorkerSchema = Type.Object({ id: Type.String(), object: Type.Literal('worker'), deleted: Type.Literal(true) }, { title: 'DeletedWorker' });


/** The statistics' window: the last this many minutes (1 to 1,440; 15 when not given). */
const WindowMinutes = (description: string) => Type.Integer({ minimum: 1, maximum: 1440, default: 15, description });

export const StatsQuery = Type.Object({
  window_minutes: WindowMinutes('Count the callers who left the queue in the last this many minutes (1 to 1,440).'),
}, { additionalProperties: false });

export const WorkerStatsQuery = Type.Object({
  window_minutes: WindowMinutes('Count the worker\'s calls and time in the last this many minutes (1 to 1,440).'),
}, { additionalProperties: false });

const Rate = (description: string) => Type.Number({ minimum: 0, maximum: 1, description });

export const QueueStatsSchema = Type.Object({
  object: Type.Literal('queue_stats'),
  queue_id: Type.String(),
  window_minutes: Type.Integer(),
  waiting: Type.Integer({ description: 'Callers in the queue now.' }),
  oldest_wait_seconds: Type.Integer({ description: 'How long the longest waiting caller has waited (0 when none).' }),
  answered: Type.Integer({ description: 'Callers bridged (to a worker, a dequeue or a dialled number) in the window.' }),
  abandoned: Type.Integer({ description: 'Callers who hung up while waiting, in the window.' }),
  abandonment_rate: Rate('abandoned / (answered + abandoned); 0 when neither.'),
  average_speed_of_answer_seconds: Type.Integer({ description: 'Average wait of the answered callers.' }),
  service_level_seconds: Type.Integer({ description: 'The queue\'s routing.service_level_seconds (20 without routing).' }),
  service_level: Rate('Callers answered within service_level_seconds / (answered + abandoned); 0 when neither.'),
  average_handle_seconds: Type.Integer({ description: 'Average time from the bridge to the end of the caller\'s call, of answered callers whose call ended.' }),
  workers: Type.Object(Object.fromEntries(WORKER_STATUSES.map((s) => [s, Type.Integer()])), {
    description: 'Workers the queue\'s routing may offer callers to (all workers of the mode without routing), by status.',
  }),
}, { $id: 'QueueStats' });

const Seconds = (description: string) => Type.Integer({ minimum: 0, description });

export const WorkerStatsSchema = Type.Object({
  object: Type.Literal('worker_stats'),
  worker_id: Type.String(),
  window_minutes: Type.Integer(),
  status: Type.Union(WORKER_STATUSES.map((s) => Type.Literal(s)), { description: 'The worker\'s status now.' }),
  calls_handled: Type.Integer({ minimum: 0, description: 'Callers the worker was connected to in the window (an offer answered after its caller hung up is not one).' }),
  calls_missed: Type.Integer({ minimum: 0, description: 'Offers the worker let ring out, was busy for or failed, in the window.' }),
  talk_seconds: Seconds('Time busy on calls in the window.'),
  wrap_up_seconds: Seconds('Time in wrap_up in the window.'),
  idle_seconds: Seconds('Time available in the window (ringing offers included).'),
  occupancy: Rate('(talk + wrap-up) / (talk + wrap-up + idle): the share of the worker\'s working time spent on calls; 0 when it had none. Offline time is not working time.'),
}, { $id: 'WorkerStats' });
