#!/usr/bin/env node
// The `switchboard` command. Runs the TypeScript sources as they are (transpiled on load,
// src/platform/typescript-hooks.mjs), so a checkout needs no build step.
import { loadTypeScript } from '../src/platform/load-typescript.mjs';

loadTypeScript();
await import('../src/cli/main.ts');
