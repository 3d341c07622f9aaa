// Calls: placing, hanging up and transferring calls over the carrier of the key's mode
// (sandbox: the simulator), with the plan's concurrent-call cap. Publishes `services.calls`
// and feeds GET /v1/account its concurrent-call count.
import type { SwitchboardModule } from '../module.ts';
import { VoiceCarriers } from '../../carriers/carrier.ts';
import { SimulatedVoiceCarrier } from '../../carriers/simulator/voice.ts';
import { LiveSipCarrier } from '../../carriers/sip/live-carrier.ts';
import { sipSettings, type SipSectionConfig } from '../../carriers/sip/config.ts';
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
  async register(app, { platform, events, services }) {
    const simulator = new SimulatedVoiceCarrier(platform);
    // Live calls go over the SIP trunks of the carriers file; without a `sip` section they
    // are refused with 422 carrier_not_configured.
    const section = platform.carriers.sections.sip as SipSectionConfig | undefined;
    const live = section ? new LiveSipCarrier(platform, sipSettings(section)) : null;
    if (live) {
      await live.start();
      app.addHook('onClose', () => live.stop());
    }
    const carriers = new VoiceCarriers(simulator, live);
    const calls = new CallService(platform, events, carriers);
    simulator.connect(calls);
    live?.connect(calls);
    // Flow webhooks are signed with the account's default secret, like a call's own webhook_url.
    const box = SecretBox.fromConfig(platform.config);
    const flowWebhooks = new FlowWebhookClient(platform.config, { defaults: new DefaultSecrets(platform.database.db, box, platform.clock), box }, platform.clock);
    const interpreter = new FlowInterpreter(platform, calls, carriers, events, flowWebhooks, new FlowAudio(platform.config, flowWebhooks));
    services.calls = calls;
    services.flowInterpreter = interpreter;
    app.addHook('onClose', async () => {
      interpreter.stop();
      await flowWebhooks.close();
    });
    services.inboundFlowCalls = new InboundFlowCalls(platform, calls, events, simulator);
    // A live caller reaching a number is answered by its voice configuration, as a sandbox one is.
    calls.connectInbound(services.inboundFlowCalls);
    services.voiceCarriers = carriers;
    // A number's stored voice_flow is checked against the media that will answer its calls.
    services.numbers.inboundMedia = (mode) => (mode === 'sandbox' ? simulator.media : live?.media ?? null);
    services.accounts.activeCalls = (accountId, mode) => calls.activeCalls(accountId, mode);
    app.addSchema(CallSchema);
    callRoutes(app, calls);
    flowRoutes(app, calls);
    flowControlRoutes(app, new FlowControl(platform, calls, carriers, interpreter, events));
    farEndRoutes(app, new SandboxFarEnd(platform, calls, simulator.media));
  },
};
