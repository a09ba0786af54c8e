// Regenerates the checked-in golden files: collections/ for the default options and, with --schemas, the vendored
// schemas under templates/schemas/ from OBFLOW_SPECS_DIR (default ../shared/specs beside the repository, README).
// Run: `npm run build && node dist/generate/update-collections.js [--schemas]`.

import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { writeFileAtomic } from '../fs.js';
import { buildCollections, writeCollections, type GeneratedFile } from './collections.js';
import { deriveSchemas, readSpecDocuments, SCHEMA_NAMES } from './schemas.js';
import { DEFAULT_TEMPLATES_DIR, loadTemplates } from './templates.js';

/** <repo>, from src/generate/ and dist/generate/ alike. */
export const REPO_ROOT = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..');

/** Pure: the vendored schema files for the given OBIE spec folder. */
export function buildSchemaFiles(specsDir: string): GeneratedFile[] {
  const schemas = deriveSchemas(readSpecDocuments(specsDir));
  return SCHEMA_NAMES.map((name) => ({ fileName: `${name}.json`, json: `${JSON.stringify(schemas[name], null, 2)}\n` }));
}

export async function updateSchemas(specsDir: string = process.env.OBFLOW_SPECS_DIR ?? join(REPO_ROOT, '..', 'shared', 'specs'), templatesDir: string = DEFAULT_TEMPLATES_DIR): Promise<string[]> {
  const files = buildSchemaFiles(specsDir);
  for (const file of files) await writeFileAtomic(join(templatesDir, 'schemas', file.fileName), file.json);
  return files.map((file) => join(templatesDir, 'schemas', file.fileName));
}

export async function updateCollections(outDir: string = join(REPO_ROOT, 'collections'), templatesDir: string = DEFAULT_TEMPLATES_DIR): Promise<string[]> {
  const files = buildCollections({ templates: loadTemplates(templatesDir) });
  await writeCollections(outDir, files);
  return files.map((file) => join(outDir, file.fileName));
}

const invokedPath = process.argv[1];
if (invokedPath !== undefined && import.meta.url === pathToFileURL(realpathSync(invokedPath)).href) {
  const written = [...(process.argv.includes('--schemas') ? await updateSchemas() : []), ...(await updateCollections())];
  for (const file of written) console.log(`wrote ${file}`);
}
