// The AI receptionist: agents, their knowledge documents, and conversations held on inbound
// calls to the agents' numbers (sandbox: POST /v1/sandbox/inbound_calls), scored when they
// end. Builds on calls (inbound calls, transfers), numbers (agent assignment) and events.
// The engine is the embedded default, or the generative one when SWITCHBOARD_LLM_BASE_URL is set.
import type { SwitchboardModule } from '../module.ts';
import { createEngine } from './engine/index.ts';
import { AgentSchema } from './agents/schema.ts';
import { AgentService } from './agents/service.ts';
import { agentRoutes } from './agents/routes.ts';
import { KnowledgeDocumentSchema } from './knowledge/schema.ts';
import { KnowledgeService } from './knowledge/service.ts';
import { KnowledgeIndexCache } from './knowledge/index-cache.ts';
import { knowledgeRoutes } from './knowledge/routes.ts';
import { ConversationSchema } from './conversations/schema.ts';
import { ConversationService } from './conversations/service.ts';
import { ConversationRunner } from './conversations/runner.ts';
import { conversationRoutes } from './conversations/routes.ts';
import { FlowHandover } from './conversations/flow-handover.ts';
import { LiveConversations, LIVE_OP_PREFIX } from './conversations/live-runner.ts';
import type { VoiceCarriers } from '../../carriers/index.ts';

export const aiModule: SwitchboardModule = {
  name: 'ai',
  register(app, { platform, events, services, carriers, wiring }) {
    const llm = platform.config.llm;
    const engine = createEngine(llm ? { llm: { baseUrl: llm.baseUrl, model: llm.model, timeoutMs: llm.timeoutMs, ...(llm.apiKey ? { apiKey: llm.apiKey } : {}) } } : {});
    const agents = new AgentService(platform, events, services.numbers, () => liveHearsSpeech(carriers.voice));
    const knowledge = new KnowledgeService(platform, events, agents);
    const conversations = new ConversationService(platform, events, services.calls, services.numbers, engine.name, services.inboundFlowCalls, carriers.sandbox);
    const indexes = new KnowledgeIndexCache(platform.database.db);
    // On live calls the agent speaks and listens through the call's media port; its operations report here.
    const live = new LiveConversations(platform, conversations, services.calls, carriers.voice, indexes, engine);
    wiring.ownedMedia.agentTurns.fill({ prefix: LIVE_OP_PREFIX, events: live });
    new ConversationRunner(platform, conversations, services.calls, indexes, engine, live);
    // A flow's agent verb starts a conversation on the call; the sandbox caller's script lines become what it says.
    wiring.flow.agents.fill(new FlowHandover(platform, conversations, (trx, call) => carriers.sandbox.takeCallerLines(trx, call), live));
    services.agents = agents;
    services.knowledge = knowledge;
    services.conversations = conversations;
    // A number's agent_id must name an agent that exists and, live, can hear.
    wiring.agentCheck.fill(async (accountId, mode, agentId) => {
      await agents.assertExists(accountId, mode, agentId);
      agents.assertCanHear(mode, 'agent_id');
    });

    app.addSchema(AgentSchema);
    app.addSchema(KnowledgeDocumentSchema);
    app.addSchema(ConversationSchema);
    agentRoutes(app, agents);
    knowledgeRoutes(app, knowledge);
    conversationRoutes(app, conversations);
  },
};

/** A live server whose carrier cannot hear words (no speech.stt) cannot run agents on live calls; no live carrier at all takes no calls, so nothing to refuse. */
function liveHearsSpeech(carriers: VoiceCarriers): boolean {
  return carriers.live?.media.hearsSpeech !== false;
}
