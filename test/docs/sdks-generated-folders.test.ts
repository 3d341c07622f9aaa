// The Bruno collection folder is generated whole: after a tag is renamed, the old tag's folder
// must not linger beside the new one (`npm run sdks` removes it, `sdks:check` reports it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { loadOpenApiDocument } from '../../scripts/openapi-document.ts';
import { buildModel } from '../../scripts/generate-sdks/model.ts';
import { generatedFiles } from '../../scripts/generate-sdks/outputs.ts';

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(`${dir}/${e.name}`) : [`${dir}/${e.name}`]));
}

test('every committed file of the Bruno collection is one the document generates', async () => {
  const document = await loadOpenApiDocument();
  const files = generatedFiles(buildModel(document), document);
  const extra = filesUnder('collections/bruno').filter((path) => !(path in files));
  assert.deepEqual(extra, [], 'left from an earlier document: run `npm run sdks` and commit the removals');
});
