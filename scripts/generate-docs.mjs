// Regenerates docs/errors.md and docs/openapi.json from the code (after `npx tsc --build`).
import { fileURLToPath } from 'node:url';
import { writeReferenceDocs } from '../packages/server/dist/reference/generate.js';

const root = fileURLToPath(new URL('..', import.meta.url));
for (const file of await writeReferenceDocs(root)) console.log(`wrote ${file}`);
