// Every module, in dependency order: a module may use the services of those before it.
import type { SwitchboardModule } from './module.ts';
import { accountsModule } from './accounts/index.ts';
import { keysModule } from './keys/index.ts';
import { eventsModule } from './events/index.ts';
import { webhooksModule } from './webhooks/index.ts';
import { numbersModule } from './numbers/index.ts';
import { portsModule } from './ports/index.ts';
import { sandboxModule } from './sandbox/index.ts';
import { messagesModule } from './messages/index.ts';
import { callsModule } from './calls/index.ts';
import { recordingsModule } from './recordings/index.ts';
import { queuesModule } from './queues/index.ts';
import { conferencesModule } from './conferences/index.ts';
import { workersModule } from './workers/index.ts';
import { monitorsModule } from './monitors/index.ts';
import { streamsModule } from './streams/index.ts';
import { aiModule } from './ai/index.ts';
import { analyticsModule } from './analytics/index.ts';
import { consoleModule } from './console/index.ts';

export const modules: SwitchboardModule[] = [
  accountsModule,
  keysModule,
  eventsModule,
  webhooksModule,
  numbersModule,
  portsModule,
  sandboxModule,
  messagesModule,
  callsModule,
  recordingsModule,
  queuesModule,
  conferencesModule,
  workersModule,
  monitorsModule,
  streamsModule,
  aiModule,
  analyticsModule,
  consoleModule,
];
