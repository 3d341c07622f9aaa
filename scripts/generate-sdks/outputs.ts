// Every file the generator owns, by path from the repository root. Files not listed here
// (runtimes, READMEs, tests) are hand-written and never touched by it.
import type { ApiModel } from './model.ts';
import { emitNodeClient, emitNodeClientTypes, emitNodeModels, emitNodePackageJson, emitNodeVersion } from './node.ts';

export function generatedFiles(api: ApiModel, _document: Record<string, any>): Record<string, string> {
  return {
    'sdks/node/package.json': emitNodePackageJson(api),
    'sdks/node/src/client.js': emitNodeClient(api),
    'sdks/node/src/client.d.ts': emitNodeClientTypes(api),
    'sdks/node/src/models.d.ts': emitNodeModels(api),
    'sdks/node/src/version.js': emitNodeVersion(api),
  };
}
