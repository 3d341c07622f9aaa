// Calls: placing, hanging up and transferring calls over the carrier of the key's mode
// (sandbox: the simulator), with the plan's concurrent-call cap. Publishes `services.calls`
// and the flow interpreter; answers the carriers' signals, their media events and inbound
// calls, and feeds GET /v1/account its concurrent-call count (through `wiring`).
import type { SwitchboardModule } from '../module.ts';
import { CallSchema } from './schema.ts';
import { CallService } from './service.ts';
import { callRoutes } from './routes.ts';
import { FlowInterpreter } from './flows/interpreter.ts';
import { flowRoutes } from './flows/routes.ts';
import { SandboxFarEnd } from './flows/far-end.ts';
import { farEndRoutes } from './flows/sandbox-routes.ts';
import { FlowWebhookClient } from './flows/flow-webhook.ts';
import { InboundFlowCalls } from './flows/inbound.ts';
import { FlowControl } from './flows/control.ts';
import { FlowAudio } from './flows/flow-audio.ts';
import { flowControlRoutes } from './flows/control-routes.ts';
import { DefaultSecrets } from '../webhooks/default-secrets.ts';
import { SecretBox } from '../../platform/secret-box.ts';

export const callsModule: SwitchboardModule = {
  name: 'calls',
  register(app, { platform, events, services, carriers, wiring }) {
    const voice = carriers.voice;
    const calls = new CallService(platform, events, voice, wiring.inboundAnswerer.getter);
    wiring.callSignals.fill(calls);
    // Flow webhooks are signed with the account's default secret, like a call's own webhook_url.
    const box = SecretBox.fromConfig(platform.config);
    const flowWebhooks = new FlowWebhookClient(platform.config, { defaults: new DefaultSecrets(platform.database.db, box, platform.clock), box }, platform.clock);
    const { flow, ownedMedia } = wiring;
    const flowAudio = new FlowAudio(platform.config, flowWebhooks);
    const interpreter = new FlowInterpreter(platform, calls, voice, events, flowWebhooks, flowAudio, {
      recordings: flow.recordings.getter,
      agents: flow.agents.getter,
      queues: flow.queues.getter,
      conferences: flow.conferences.getter,
      monitors: flow.monitors.getter,
      streams: flow.streams.getter,
      ownedMedia: [ownedMedia.agentTurns.getter, ownedMedia.queueWait.getter],
    });
    wiring.mediaEvents.fill(interpreter);
    services.calls = calls;
    services.flowInterpreter = interpreter;
    services.flowAudio = flowAudio;
    wiring.promptAudio.fill(flowAudio);
    app.addHook('onClose', async () => {
      interpreter.stop();
      await flowWebhooks.close();
    });
    // A caller reaching a number, sandbox or live, is answered by its voice configuration.
    services.inboundFlowCalls = new InboundFlowCalls(platform, calls, events, carriers.sandbox);
    wiring.inboundAnswerer.fill(services.inboundFlowCalls);
    // A number's stored voice_flow is checked against the media that will answer its calls.
    wiring.inboundMedia.fill((mode) => (mode === 'sandbox' ? voice.forMode('sandbox').media : voice.live?.media ?? null));
    wiring.activeCalls.fill((accountId, mode) => calls.activeCalls(accountId, mode));
    app.addSchema(CallSchema);
    callRoutes(app, calls);
    flowRoutes(app, calls);
    flowControlRoutes(app, new FlowControl(platform, calls, voice, interpreter, events));
    farEndRoutes(app, new SandboxFarEnd(platform, calls, carriers.sandbox));
  },
};
