import type { SwitchboardModule } from '../module.ts';
import { accountRoutes } from './routes.ts';

export const accountsModule: SwitchboardModule = {
  name: 'accounts',
  register(app, ctx) {
    accountRoutes(app, ctx);
  },
};
