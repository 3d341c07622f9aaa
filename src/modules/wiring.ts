// The late-bound ports between services built in order (src/composition.ts creates them,
// src/modules/index.ts lists the order). Each joins a party built early to one built later:
// the early one is given the port's getter at construction, the later one's module fills
// the port once when it registers. The server refuses to start while any port is empty
// (assertFilled), naming it. This replaces setters: no module assigns into another's service.
import { LatePort } from '../platform/late-port.ts';
import type { CallSignals, ConferenceEvents, MediaEvents, PromptAudio, RecordingSinks, SoftphoneRegistry, StreamEvents } from '../carriers/index.ts';
import type { InboundAnswerer } from './calls/service.ts';
import type { FlowConferences, FlowRecordings } from './calls/flows/verbs/verb.ts';
import type { FlowAgents } from './calls/flows/verbs/agent.ts';
import type { FlowQueues } from './calls/flows/verbs/enqueue.ts';
import type { FlowStreams } from './calls/flows/verbs/stream.ts';
import type { FlowMonitors } from './calls/flows/verbs/monitor.ts';
import type { AgentCheck } from './numbers/service.ts';
import type { InboundMedia } from './numbers/voice-config.ts';
import type { ActiveCallCounter } from './accounts/service.ts';

/** Media operations that someone else than the flow runs on a call, recognised by their id's prefix. */
export interface OwnedMedia {
  prefix: string;
  events: MediaEvents;
}

export interface Wiring {
  /** Carriers -> calls service: every call's signals (filled by the calls module). */
  callSignals: LatePort<CallSignals>;
  /** Carriers' media ports -> flow interpreter (filled by the calls module). */
  mediaEvents: LatePort<MediaEvents>;
  /** Carriers' media ports -> the flows' audio cache, fetched under the URL policy (filled by the calls module). */
  promptAudio: LatePort<PromptAudio>;
  /** Carriers' media ports -> recordings service (filled by the recordings module). */
  recordingSinks: LatePort<RecordingSinks>;
  /** Carriers' media streams -> streams service (filled by the streams module). */
  streamEvents: LatePort<StreamEvents>;
  /** Carriers' node loss -> conferences service: a dead node's conferences end (filled by the conferences module). */
  conferenceEvents: LatePort<ConferenceEvents>;
  /** The live SIP registrar -> workers' softphone credentials and bindings (filled by the workers module). */
  softphones: LatePort<SoftphoneRegistry>;
  /** Calls service -> the inbound answerer of numbers' voice configuration (filled by the calls module). */
  inboundAnswerer: LatePort<InboundAnswerer>;
  /** Numbers service -> whether an AI agent exists and can hear (filled by the ai module). */
  agentCheck: LatePort<AgentCheck>;
  /** Numbers service -> the media that answers each mode's inbound calls (filled by the calls module). */
  inboundMedia: LatePort<InboundMedia>;
  /** Accounts service -> an account's calls in progress (filled by the calls module). */
  activeCalls: LatePort<ActiveCallCounter>;
  /** The flow interpreter's verbs -> the services that take calls from them. */
  flow: {
    recordings: LatePort<FlowRecordings>;
    agents: LatePort<FlowAgents>;
    queues: LatePort<FlowQueues>;
    conferences: LatePort<FlowConferences>;
    monitors: LatePort<FlowMonitors>;
    streams: LatePort<FlowStreams>;
  };
  /** Media operations the flow does not own: the AI agent's turns on live calls, a queue's wait audio. */
  ownedMedia: {
    agentTurns: LatePort<OwnedMedia>;
    queueWait: LatePort<OwnedMedia>;
  };
}

export function createWiring(): Wiring {
  return {
    callSignals: new LatePort('calls: call signals'),
    mediaEvents: new LatePort('calls: media events (flow interpreter)'),
    promptAudio: new LatePort('calls: prompt audio'),
    recordingSinks: new LatePort('recordings: recording sinks'),
    streamEvents: new LatePort('streams: stream events'),
    conferenceEvents: new LatePort('conferences: conference events'),
    softphones: new LatePort('workers: softphone registry'),
    inboundAnswerer: new LatePort('calls: inbound answerer'),
    agentCheck: new LatePort('ai: agent check'),
    inboundMedia: new LatePort('calls: inbound media'),
    activeCalls: new LatePort('calls: active calls'),
    flow: {
      recordings: new LatePort('recordings: flow recordings'),
      agents: new LatePort('ai: flow agents'),
      queues: new LatePort('queues: flow queues'),
      conferences: new LatePort('conferences: flow conferences'),
      monitors: new LatePort('monitors: flow monitors'),
      streams: new LatePort('streams: flow streams'),
    },
    ownedMedia: {
      agentTurns: new LatePort('ai: live agent turns'),
      queueWait: new LatePort('queues: wait audio'),
    },
  };
}

/** Every port, for the start-up check. */
export function allPorts(wiring: Wiring): LatePort<unknown>[] {
  const { flow, ownedMedia, ...single } = wiring;
  return [...Object.values(single), ...Object.values(flow), ...Object.values(ownedMedia)] as LatePort<unknown>[];
}
