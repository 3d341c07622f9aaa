// Prints the OpenAPI 3.1 document (npm run openapi > openapi.json), the input for SDK
// generators (npm run sdks uses the same loader).
import { loadOpenApiDocument } from './openapi-document.ts';

process.stdout.write(JSON.stringify(await loadOpenApiDocument(), null, 2) + '\n');
