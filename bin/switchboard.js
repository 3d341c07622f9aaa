#!/usr/bin/env node
// The `switchboard` command. Runs the TypeScript sources through tsx, so a checkout needs
// no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
