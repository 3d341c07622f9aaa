// The SDKs under sdks/ are generated from the OpenAPI document and committed: this fails when
// a change to a route or schema was not followed by `npm run sdks` (CI's sdks:check does too).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadOpenApiDocument } from '../../scripts/openapi-document.ts';
import { buildModel } from '../../scripts/generate-sdks/model.ts';
import { generatedFiles } from '../../scripts/generate-sdks/outputs.ts';

test('the committed SDKs match the OpenAPI document (run `npm run sdks` after changing it)', async () => {
  const document = await loadOpenApiDocument();
  const files = generatedFiles(buildModel(document), document);
  const drifted = Object.entries(files)
    .filter(([path, content]) => {
      try {
        return readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8') !== content;
      } catch {
        return true;
      }
    })
    .map(([path]) => path);
  assert.deepEqual(drifted, [], 'these generated files are stale: run `npm run sdks` and commit them');
});
