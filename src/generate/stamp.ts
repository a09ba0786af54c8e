// Whether the collections on disk are what `obflow generate` would write now, without building them: generation is
// deterministic (same inputs → byte-identical files), so a fingerprint of its inputs — the templates, the generator's
// own code, the versions of the SDK and template engine it runs, the options — names the output. The stamp beside
// the collections records that fingerprint and each file's SHA-256; when both match, building and writing are skipped
// (and postman-collection, handlebars and the templates are never loaded). A hand-edited or missing file, another
// template or another obflow: the stamp does not match and everything is generated again.

import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_TEMPLATES_DIR } from './files.js';

/** The stamp's file name in the output folder (no .json ending: it is not a collection). */
export const GENERATED_STAMP_FILE = '.obflow-generated';

/** The template folders loadTemplates() reads (src/generate/templates.ts). */
const TEMPLATE_FOLDERS = ['scripts', 'bodies', 'schemas'] as const;

/** Packages whose version shapes the output (the SDK's toJSON, the template engine). */
const OUTPUT_PACKAGES = ['postman-collection', 'handlebars'] as const;

interface Stamp {
  fingerprint: string;
  /** File name → SHA-256 (hex) of its bytes as written, in the order generate returns them. */
  files: Record<string, string>;
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(path));
    else if (entry.isFile()) out.push(path);
  }
  return out.sort();
}

function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** SHA-256 over the generator's inputs: templates, its own code (src/generate or dist/generate, wherever it runs
 *  from), the output packages' versions and the options as JSON. */
export function generatorFingerprint(options: unknown = {}, templatesDir: string = DEFAULT_TEMPLATES_DIR): string {
  const hash = createHash('sha256');
  const add = (label: string, data: string | Uint8Array): void => {
    hash.update(`${label}\0${data.length}\0`).update(data);
  };
  for (const folder of TEMPLATE_FOLDERS) {
    const dir = join(templatesDir, folder);
    for (const file of filesUnder(dir)) add(`templates/${folder}/${relative(dir, file)}`, readFileSync(file));
  }
  const codeDir = dirname(fileURLToPath(import.meta.url));
  for (const file of filesUnder(codeDir)) add(`code/${relative(codeDir, file)}`, readFileSync(file));
  const require = createRequire(import.meta.url);
  for (const name of OUTPUT_PACKAGES) {
    const { version } = JSON.parse(readFileSync(require.resolve(`${name}/package.json`), 'utf8')) as { version?: string };
    add(`package/${name}`, String(version));
  }
  add('options', JSON.stringify(options) ?? '');
  return hash.digest('hex');
}

/** The stamp's text for files just written with this fingerprint. */
export function stampText(fingerprint: string, files: readonly { fileName: string; json: string }[]): string {
  const stamp: Stamp = { fingerprint, files: Object.fromEntries(files.map((file) => [file.fileName, sha256(file.json)])) };
  return `${JSON.stringify(stamp, null, 2)}\n`;
}

/** The files on disk when the stamp in dir names this fingerprint and every file it lists is unchanged; otherwise
 *  undefined (no stamp, another fingerprint, a file missing or edited). */
export async function currentCollections(dir: string, fingerprint: string): Promise<{ fileName: string; json: string }[] | undefined> {
  let stamp: Stamp;
  try {
    stamp = JSON.parse(await readFile(join(dir, GENERATED_STAMP_FILE), 'utf8')) as Stamp;
  } catch {
    return undefined;
  }
  if (stamp?.fingerprint !== fingerprint || typeof stamp.files !== 'object' || stamp.files === null) return undefined;
  const files: { fileName: string; json: string }[] = [];
  for (const [fileName, digest] of Object.entries(stamp.files)) {
    let json: string;
    try {
      json = await readFile(join(dir, fileName), 'utf8');
    } catch {
      return undefined;
    }
    if (sha256(json) !== digest) return undefined;
    files.push({ fileName, json });
  }
  return files.length === 0 ? undefined : files;
}
