// Static files of the console, served from memory under /console/assets: htmx and uPlot from
// node_modules (nothing is fetched from the internet, no build step), and our own CSS and
// script beside this file. Names are fixed: only these files can be served.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const own = (name: string) => fileURLToPath(new URL(`./assets/${name}`, import.meta.url));

const FILES: Record<string, { path: string; type: string }> = {
  'htmx.min.js': { path: require.resolve('htmx.org/dist/htmx.min.js'), type: 'text/javascript; charset=utf-8' },
  'uPlot.iife.min.js': { path: require.resolve('uplot/dist/uPlot.iife.min.js'), type: 'text/javascript; charset=utf-8' },
  'uPlot.min.css': { path: require.resolve('uplot/dist/uPlot.min.css'), type: 'text/css; charset=utf-8' },
  'console.css': { path: own('console.css'), type: 'text/css; charset=utf-8' },
  'console.js': { path: own('console.js'), type: 'text/javascript; charset=utf-8' },
};

export interface Asset {
  body: Buffer;
  type: string;
}

/** Read once at startup: a few hundred kilobytes, and a missing file fails the start, not a page. */
export function loadAssets(): Map<string, Asset> {
  return new Map(Object.entries(FILES).map(([name, f]) => [name, { body: readFileSync(f.path), type: f.type }]));
}
