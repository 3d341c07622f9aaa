// The services modules publish for each other, filled in as modules register.
import type { AccountService } from './accounts/service.ts';
import type { KeyService } from './keys/service.ts';
import type { WebhookService } from './webhooks/service.ts';
import type { NumberService } from './numbers/service.ts';
import type { PortService } from './ports/service.ts';
import type { SandboxService } from './sandbox/service.ts';
import type { MessageService } from './messages/service.ts';
import type { CallService } from './calls/service.ts';
import type { InboundFlowCalls } from './calls/flows/inbound.ts';
import type { FlowInterpreter } from './calls/flows/interpreter.ts';
import type { FlowAudio } from './calls/flows/flow-audio.ts';
import type { RecordingService } from './recordings/service.ts';
import type { ConferenceService } from './conferences/service.ts';
import type { VoiceCarriers } from '../carriers/index.ts';
import type { AgentService } from './ai/agents/service.ts';
import type { KnowledgeService } from './ai/knowledge/service.ts';
import type { ConversationService } from './ai/conversations/service.ts';
import type { QueueService } from './queues/service.ts';
import type { WorkerService } from './workers/service.ts';

export interface Services {
  accounts: AccountService;
  keys: KeyService;
  webhooks: WebhookService;
  numbers: NumberService;
  ports: PortService;
  sandbox: SandboxService;
  messages: MessageService;
  calls: CallService;
  /** Inbound sandbox calls to numbers answered by a flow (voice_url, voice_flow, or none). */
  inboundFlowCalls: InboundFlowCalls;
  /** Runs call flows; it reaches the services its verbs hand calls to through the ports of wiring.ts. */
  flowInterpreter: FlowInterpreter;
  /** Audio files fetched under the URL policy and cached (a play verb's; an announcement's, a queue's wait flow's). */
  flowAudio: FlowAudio;
  recordings: RecordingService;
  /** Conferences: the conference verb seats calls through it. */
  conferences: ConferenceService;
  /** The voice carrier of each mode (sandbox: the simulator). */
  voiceCarriers: VoiceCarriers;
  /** AI receptionist. */
  agents: AgentService;
  knowledge: KnowledgeService;
  conversations: ConversationService;
  /** Call queues (the enqueue and dequeue verbs hand calls to them). */
  queues: QueueService;
  /** Workers: the human agents queues route callers to. */
  workers: WorkerService;
}
