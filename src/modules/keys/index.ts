import type { SwitchboardModule } from '../module.ts';
import { keyRoutes } from './routes.ts';

export const keysModule: SwitchboardModule = {
  name: 'keys',
  register(app, ctx) {
    keyRoutes(app, ctx);
  },
};
