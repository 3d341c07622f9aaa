import { spawnSync } from 'node:child_process';
import { readdirSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
// Every file the generator owns, by path from the repository root. Files not listed here
// (runtimes, READMEs, tests) are hand-written and never touched by it.
import type { ApiModel } from './model.ts';
import { brunoFiles, postmanCollection } from '../../src/platform/request-collections.ts';
import { emitPythonClient, emitPythonModels, emitPythonPyproject, emitPythonVersion } from './python.ts';
import { emitGoClient, emitGoModels, emitGoVersion } from './go.ts';
import { emitNodeClient, emitNodeClientTypes, emitNodeModels, emitNodePackageJson, emitNodeVersion } from './node.ts';

/** Go code is run through gofmt, as Go tooling expects (the generator needs Go installed). */
function gofmt(source: string): string {
  const result = spawnSync('gofmt', [], { input: source, encoding: 'utf8' });
  if (result.error || result.status !== 0) {
    throw new Error(`gofmt failed (is Go installed? apt-get install golang-go): ${result.error?.message ?? result.stderr}`);
  }
  return result.stdout;
}

/**
 * Folders whose every file is generated: a file in one that the document no longer produces
 * (a renamed tag's Bruno folder) is stale, removed by `npm run sdks` and reported by --check.
 */
export const GENERATED_FOLDERS = ['collections/bruno'];

/** Files under GENERATED_FOLDERS (paths from `root`) that `files` does not produce. */
export function staleFiles(root: string, files: Record<string, string>): string[] {
  const walk = (dir: string): string[] => {
    let entries: Dirent[];
    try {
      entries = readdirSync(join(root, dir), { withFileTypes: true });
    } catch {
      return [];
    }
    return entries.flatMap((e) => (e.isDirectory() ? walk(`${dir}/${e.name}`) : [`${dir}/${e.name}`]));
  };
  return GENERATED_FOLDERS.flatMap(walk).filter((path) => !(path in files)).sort();
}

export function generatedFiles(api: ApiModel, document: Record<string, any>): Record<string, string> {
  const bruno = Object.fromEntries(Object.entries(brunoFiles(document)).map(([path, content]) => [`collections/bruno/${path}`, content]));
  return {
    'collections/switchboard.postman_collection.json': JSON.stringify(postmanCollection(document), null, 2) + '\n',
    ...bruno,
    'sdks/node/package.json': emitNodePackageJson(api),
    'sdks/node/src/client.js': emitNodeClient(api),
    'sdks/node/src/client.d.ts': emitNodeClientTypes(api),
    'sdks/node/src/models.d.ts': emitNodeModels(api),
    'sdks/node/src/version.js': emitNodeVersion(api),
    'sdks/go/client_gen.go': gofmt(emitGoClient(api)),
    'sdks/go/models_gen.go': gofmt(emitGoModels(api)),
    'sdks/go/version.go': gofmt(emitGoVersion(api)),
    'sdks/python/pyproject.toml': emitPythonPyproject(api),
    'sdks/python/switchboard/_client.py': emitPythonClient(api),
    'sdks/python/switchboard/_models.py': emitPythonModels(api),
    'sdks/python/switchboard/_version.py': emitPythonVersion(api),
  };
}
