// Media streams: a call's audio to and from the customer's own WebSocket server
// (docs/media-streams.md). Registered after calls: it follows their transitions, uses their
// carriers' media ports and lends the flow interpreter the stream verb's streams.
import type { SwitchboardModule } from '../module.ts';
import { SecretBox } from '../../platform/secret-box.ts';
import { DefaultSecrets } from '../webhooks/default-secrets.ts';
import { StreamSchema } from './schema.ts';
import { StreamService } from './service.ts';
import { streamRoutes } from './routes.ts';

export const streamsModule: SwitchboardModule = {
  name: 'streams',
  register(app, { platform, events, services, carriers, wiring }) {
    // The handshake is signed with the account's default secret, like a call's own webhooks.
    const box = SecretBox.fromConfig(platform.config);
    const secrets = { defaults: new DefaultSecrets(platform.database.db, box, platform.clock), box };
    const streams = new StreamService(platform, events, services.calls, carriers.voice, secrets, services.flowInterpreter.runtime);
    wiring.flow.streams.fill(streams);
    wiring.streamEvents.fill(streams);
    // Streams a crashed or restarted process left open end before this one serves (docs/media-streams.md).
    app.addHook('onReady', () => streams.endOrphans());
    // preClose: before the onClose hooks, where the carriers hang up their calls and stop their
    // media workers; every open stream sends `stop` and its end is written while all still runs.
    app.addHook('preClose', async () => {
      for (const carrier of carriers.voice.all()) await carrier.media.streams?.close();
    });
    app.addSchema(StreamSchema);
    streamRoutes(app, streams);
  },
};
