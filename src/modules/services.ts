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
import type { RecordingService } from './recordings/service.ts';
import type { VoiceCarriers } from '../carriers/carrier.ts';
import type { AgentService } from './ai/agents/service.ts';
import type { KnowledgeService } from './ai/knowledge/service.ts';
import type { ConversationService } from './ai/conversations/service.ts';

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
  /** Runs call flows; the recordings module connects the record verb's recordings to it. */
  flowInterpreter: FlowInterpreter;
  recordings: RecordingService;
  /** The voice carrier of each mode (sandbox: the simulator). */
  voiceCarriers: VoiceCarriers;
  /** AI receptionist. */
  agents: AgentService;
  knowledge: KnowledgeService;
  conversations: ConversationService;
}
