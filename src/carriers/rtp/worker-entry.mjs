// Worker threads do not inherit the main thread's module hooks, so the media worker
// registers the TypeScript loader itself before loading.
import { loadTypeScript } from '../../platform/load-typescript.mjs';

loadTypeScript();
await import('./worker.ts');
