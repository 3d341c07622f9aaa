// The composition root: the one place that builds the carriers and joins them to the
// modules. Carriers come from one function of their public entry (buildCarriers); modules
// then register in the order of src/modules/index.ts, each building its services through
// constructors from the carriers and the services before it. Where a service built early
// needs one built later (the carriers report to the calls service, the flow interpreter
// hands calls to queues and agents), it gets a late-bound port of `wiring` that the later
// module fills; `start` refuses to run with an empty port and names it.
import type { App } from './platform/app-type.ts';
import type { Platform } from './platform/context.ts';
import { assertFilled } from './platform/late-port.ts';
import type { EventEmitter } from './events/emit.ts';
import { buildCarriers, type Carriers } from './carriers/index.ts';
import type { CarriersConfig } from './carriers/config/load.ts';
import { CallCarrierStore } from './modules/calls/carrier-store.ts';
import { modules } from './modules/index.ts';
import type { Services } from './modules/services.ts';
import { createServiceRegistry } from './modules/service-registry.ts';
import { AccountService } from './modules/accounts/service.ts';
import { KeyService } from './modules/keys/service.ts';
import { allPorts, createWiring, type Wiring } from './modules/wiring.ts';

export interface Composed {
  services: Services;
  carriers: Carriers;
  wiring: Wiring;
}

/** Builds the carriers, registers every module over them, checks the wiring and starts the carriers' live links. */
export async function compose(app: App, parts: { platform: Platform; events: EventEmitter; clearKeyCache: () => void; carriersFile: CarriersConfig }): Promise<Composed> {
  const { platform, events, clearKeyCache } = parts;
  const { database, clock } = platform;
  const wiring = createWiring();
  // Filled as the modules register, in order (each module publishes its own service); reading
  // one not published yet is a named error (service-registry.ts).
  const services = createServiceRegistry({
    accounts: new AccountService(database.db, clock, clearKeyCache, wiring.activeCalls.getter),
    keys: new KeyService(database.db, clock, clearKeyCache),
  });
  const carriers = buildCarriers({
    platform,
    file: parts.carriersFile,
    // Carriers keep their per-call state through the calls module, never in its tables directly.
    callStore: new CallCarrierStore(platform.database),
    listeners: {
      signals: wiring.callSignals.getter,
      media: wiring.mediaEvents.getter,
      sinks: wiring.recordingSinks.getter,
      audio: wiring.promptAudio.getter,
      streams: wiring.streamEvents.getter,
      conferences: wiring.conferenceEvents.getter,
      softphones: wiring.softphones.getter,
    },
  });
  services.voiceCarriers = carriers.voice;
  for (const module of modules) {
    await module.register(app, { platform, events, services, carriers, wiring });
  }
  assertFilled(allPorts(wiring));
  await carriers.start();
  app.addHook('onClose', () => carriers.stop());
  return { services, carriers, wiring };
}
