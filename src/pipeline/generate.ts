// The generate stage: the collections for every step, written into the output folder unless the ones there are
// current. Light on purpose (no registration, run or PKI modules): `obflow generate` loads this and the config only
// (src/pipeline/light.ts).

import { DEFAULT_VRP_SETTINGS, type VrpSettings } from '../generate/vrp-plan.js';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { API_FAMILIES, type ApiFamily } from '../api-families.js';
import { DEFAULT_FAPI_PROFILE, type FapiProfile } from '../fapi-profile.js';
import { API_VERSION_ROWS, DEFAULT_API_VERSION, type ApiVersion } from '../generate/api-versions.js';
import { writeFileAtomic } from '../fs.js';
import { stepFileName } from '../generate/files.js';
import { currentCollections, GENERATED_STAMP_FILE, generatorFingerprint, stampText } from '../generate/stamp.js';
import { stateLayout } from '../state/layout.js';

/**
 * Where a family's collections of a version live: the family's folder (accounts': the output folder itself) and the
 * version's (v3.1's: none, as always; another's named after it, `collections/v4.0/`), with the same file and folder
 * names, so a newman command differs only in the file it names (docs/collections.md, "Versions"; the rows of
 * src/api-families.ts and src/generate/api-versions.ts).
 */
export function collectionsDirOf(outDir: string, version: ApiVersion, family: Pick<ApiFamily, 'folder'> = API_FAMILIES.accounts): string {
  return join(outDir, family.folder, API_VERSION_ROWS[version].collectionsFolder);
}

/**
 * Writes every collection; returns the paths and the step collections as built, so a run need not read them back.
 * Generation is deterministic: when the stamp in outDir names the inputs' fingerprint and the files are unchanged
 * (src/generate/stamp.ts), nothing is built or written and the files on disk are returned (`written: false`); the
 * generator (postman-collection, handlebars, the templates) loads only when it has to build.
 */
export async function generateStage(
  collectionsDir: string,
  options: { version?: ApiVersion; family?: ApiFamily; par?: boolean; jarm?: boolean; fapi?: FapiProfile; vrp?: VrpSettings } = {},
): Promise<{ paths: string[]; collections: Record<string, object>; written: boolean }> {
  const version = options.version ?? DEFAULT_API_VERSION;
  const family = options.family ?? API_FAMILIES.accounts;
  const outDir = collectionsDirOf(collectionsDir, version, family);
  // Only a non-default option enters the fingerprint, so the default collections' stamp stays as it was (and v3.1's
  // is what it was before versions existed: its row adds nothing); a profile is named by its name, which says all its
  // row does.
  const generation = {
    ...(options.par === true || options.fapi?.par === 'always' ? { par: true } : {}),
    ...(options.jarm === true ? { jarm: true } : {}),
  };
  const profile = options.fapi === undefined || options.fapi.name === DEFAULT_FAPI_PROFILE ? {} : { fapi: options.fapi.name };
  // Another family than accounts names itself (accounts' stamp is as it was before families existed).
  const named = family === API_FAMILIES.accounts ? {} : { family: family.name };
  // The VRP family's collections are its mandate's (flow.vrp): another mandate is other collections.
  const mandate =
    family === API_FAMILIES.vrp && options.vrp !== undefined && JSON.stringify(options.vrp) !== JSON.stringify(DEFAULT_VRP_SETTINGS)
      ? { vrp: options.vrp }
      : {};
  const fingerprint = generatorFingerprint({ ...generation, ...profile, ...named, ...mandate, ...API_VERSION_ROWS[version].fingerprint });
  let files = await currentCollections(outDir, fingerprint);
  const written = files === undefined;
  if (files === undefined) {
    const { buildCollections, loadTemplates, writeCollections } = await import('../generate/index.js');
    files = buildCollections({
      templates: loadTemplates(),
      family,
      apiVersion: version,
      ...generation,
      ...(options.fapi === undefined ? {} : { fapi: options.fapi }),
      ...(family === API_FAMILIES.vrp && options.vrp !== undefined ? { vrp: options.vrp } : {}),
    });
    await writeCollections(outDir, files);
    // After the collections: a stamp never names files that are not all written.
    await writeFileAtomic(join(outDir, GENERATED_STAMP_FILE), stampText(fingerprint, files));
  }
  const byName = new Map(files.map((file) => [file.fileName, file.json]));
  const collections: Record<string, object> = {};
  for (const name of family.steps) {
    const json = byName.get(stepFileName(name));
    if (json !== undefined) collections[name] = JSON.parse(json) as object;
  }
  return { paths: files.map((file) => join(outDir, file.fileName)), collections, written };
}

/**
 * flow.par resolved for generation: "always" and "never" as they say; "auto" pushes under a profile that
 * always pushes (FAPI 2.0), for the embedded sandbox with sandbox.par "required", and where the bank's discovery says
 * require_pushed_authorization_requests (`discoveryRequires`: what the last discovery read recorded,
 * savedDiscoveryRequiresPar — `obflow generate` itself is offline).
 */
export function parForGeneration(
  config: {
    target: string;
    flow: { par: 'auto' | 'always' | 'never'; fapi: Pick<FapiProfile, 'par'> };
    sandbox: { par: 'required' | 'optional' | 'off' };
  },
  discoveryRequires = false,
): boolean {
  if (config.flow.par !== 'auto') return config.flow.par === 'always';
  // FAPI 2.0 Security Profile §5.3.2.2: pushed authorization requests always ("never" is a config error with 2.0).
  if (config.flow.fapi.par === 'always' || discoveryRequires) return true;
  return config.target === 'sandbox' && config.sandbox.par === 'required';
}

/** Where the session's discovery read records what the bank requires (src/pipeline/par.ts recordDiscovery). */
export function discoveryRecordPath(stateDir: string): string {
  return stateLayout(stateDir).discoveryRecord;
}

/** What a discovery read recorded about the target: one record per state folder, for the target it read. */
export interface DiscoveryRecord {
  version: 1;
  target: string;
  /** bank.auth_url for a bank (another bank's record is not this one's); absent for the sandbox. */
  auth_url?: string;
  require_pushed_authorization_requests: boolean;
}

/** Whether the last discovery read of this config's target said require_pushed_authorization_requests (for
 *  flow.par "auto"); false when none was read yet or it was another target's. */
export async function savedDiscoveryRequiresPar(config: {
  stateDir: string;
  target: string;
  bank?: { auth_url?: string | undefined } | undefined;
}): Promise<boolean> {
  let record: Partial<DiscoveryRecord>;
  try {
    record = JSON.parse(await readFile(discoveryRecordPath(config.stateDir), 'utf8')) as Partial<DiscoveryRecord>;
  } catch {
    return false;
  }
  if (record.target !== config.target) return false;
  if (config.target === 'bank' && record.auth_url !== config.bank?.auth_url) return false;
  return record.require_pushed_authorization_requests === true;
}
