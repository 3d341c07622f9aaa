// Worker threads do not inherit the main thread's tsx loader when it was registered through
// the API (bin/switchboard.js), so the speech worker registers it itself before loading.
import { register } from 'tsx/esm/api';

register();
await import('./espeak-worker.ts');
