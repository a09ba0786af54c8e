// Regenerates the checked-in golden files: collections/ for the default options, every API family and version
// (accounts v3.1 in collections/ itself, v4.0 in collections/v4.0/; payments in collections/payments/, …) and,
// with --schemas, the vendored schemas under templates/schemas/ from OBFLOW_SPECS_DIR (default ../shared/specs beside
// the repository, README).
// Run: `npm run collections:update` (add `-- --schemas` for the schemas); it builds dist/ first and runs from it.

import { realpathSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { writeFileAtomic } from '../dist/fs.js';
import { buildCollections, writeCollections } from '../dist/generate/collections.js';
import { buildSchemaFiles } from '../dist/generate/schemas.js';
import { API_VERSIONS } from '../dist/generate/api-versions.js';
import { FAMILY_LIST } from '../dist/api-families.js';
import { collectionsDirOf } from '../dist/pipeline/generate.js';
import { DEFAULT_TEMPLATES_DIR, loadTemplates } from '../dist/generate/templates.js';

/** <repo>, beside scripts/. */
export const REPO_ROOT = join(fileURLToPath(new URL('.', import.meta.url)), '..');

export async function updateSchemas(
  specsDir = process.env.OBFLOW_SPECS_DIR ?? join(REPO_ROOT, '..', 'shared', 'specs'),
  templatesDir = DEFAULT_TEMPLATES_DIR,
) {
  const files = buildSchemaFiles(specsDir);
  for (const file of files) await writeFileAtomic(join(templatesDir, 'schemas', file.fileName), file.json);
  return files.map((file) => join(templatesDir, 'schemas', file.fileName));
}

export async function updateCollections(outDir = join(REPO_ROOT, 'collections'), templatesDir = DEFAULT_TEMPLATES_DIR) {
  const templates = loadTemplates(templatesDir);
  const written = [];
  for (const family of FAMILY_LIST) {
    for (const apiVersion of API_VERSIONS) {
      const dir = collectionsDirOf(outDir, apiVersion, family);
      await mkdir(dir, { recursive: true });
      const files = buildCollections({ templates, family, apiVersion });
      await writeCollections(dir, files);
      written.push(...files.map((file) => join(dir, file.fileName)));
    }
  }
  return written;
}

const invokedPath = process.argv[1];
if (invokedPath !== undefined && import.meta.url === pathToFileURL(realpathSync(invokedPath)).href) {
  const written = [...(process.argv.includes('--schemas') ? await updateSchemas() : []), ...(await updateCollections())];
  for (const file of written) console.log(`wrote ${file}`);
}
