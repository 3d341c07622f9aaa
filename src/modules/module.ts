// What a module is: a name and a register function that publishes its service, registers
// its routes and its job handlers. Modules are registered in dependency order
// (src/modules/index.ts); a module finds the services it depends on in `services`, the
// carriers in `carriers` (built by the composition root, src/composition.ts), and fills the
// late-bound ports of `wiring` that name it, so services built earlier can reach its own.
import type { App } from '../platform/app-type.ts';
import type { Platform } from '../platform/context.ts';
import type { EventEmitter } from '../events/emit.ts';
import type { Services } from './services.ts';
import type { Carriers } from '../carriers/index.ts';
import type { Wiring } from './wiring.ts';

export interface ModuleContext {
  platform: Platform;
  events: EventEmitter;
  services: Services;
  carriers: Carriers;
  wiring: Wiring;
}

export interface SwitchboardModule {
  name: string;
  register(app: App, ctx: ModuleContext): void | Promise<void>;
}
