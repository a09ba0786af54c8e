// The versions of the OBIE Read/Write APIs obflow speaks, as one table (a row per version, everything that differs
// between them): the vocabulary that the config schema, the flags, the generator, the run and the reports import (it lives
// in generate/, which config already imports, and imports only errors.ts, flag-list.ts and api-families.ts, so `--help`
// stays light). The emulator has its twin (src/sandbox/contracts.ts AIS_API_VERSIONS, tied to this one by
// test/unit/sandbox-v4.test.ts): the two rooms meet only on the wire.

import { API_FAMILIES, type ApiFamily } from '../api-families.js';
import { ObflowError } from '../errors.js';
import { parseFlagList } from '../flag-list.js';

/** 3.1: docs/bank-interface.md as written (/open-banking/v3.1/aisp); 4.0: OBL Read/Write v4.0 (/open-banking/v4.0/aisp). */
export const API_VERSIONS = ['3.1', '4.0'] as const;
export type ApiVersion = (typeof API_VERSIONS)[number];
/** The interface as written (docs/bank-interface.md): what flow.apiVersion means when nothing sets it. */
export const DEFAULT_API_VERSION: ApiVersion = '3.1';

/**
 * Everything that differs between the versions obflow speaks, one row each: code asks the row of its version, never
 * compares a version literal (test/unit/variation-tables.test.ts). The marks below tell one version's artefacts from
 * another's: v3.1's are as they were before versions existed (the golden collections, the generator's stamp, a CI
 * leg's name), another version's name it.
 */
export interface ApiVersionRow {
  version: ApiVersion;
  /** How people name it after a family's short name (`AIS v4.0`). */
  name: string;
  /** The root of its APIs' paths, before a family's segment (its OpenAPI files' `servers`). */
  pathRoot: string;
  /** The balance type obflow reads (docs/bank-interface.md §2.3): InterimAvailable, ISO 20022 ITAV in v4.0 — the
   *  collections' rule (src/generate/steps/common.ts), the summary's label and the comparison's mapping. */
  balanceType: string;
  /** A consent's status before the PSU acts: AwaitingAuthorisation, OBInternalConsentStatus1Code AWAU in v4.0. */
  awaitingStatus: string;
  /** False for the interface as written, which every bank obflow targets serves; true where a bank may not serve the
   *  version, so a 404 at its first read is a setting to change, not a broken rule (OBIE R/W Profile: an endpoint not
   *  implemented is a 404). */
  mayBeUnserved: boolean;
  /** Its collections' sub-folder of the output folder (v3.1's are the folder itself; docs/collections.md "Versions"). */
  collectionsFolder: string;
  /** Its collections' names (`obflow AIS — accounts`, `obflow AIS v4.0 — accounts`), given the family's short name. */
  collectionName(family: string): string;
  /** Before every id path of its collections, so two versions import into one Postman workspace side by side. */
  collectionIdPrefix: string;
  /** What it adds to the generator's fingerprint (src/generate/stamp.ts): nothing for v3.1, whose stamp predates versions. */
  fingerprint: { apiVersion?: ApiVersion };
  /** How a merged page's leg id names it (`… / AIS v4.0`), given the family's short name; undefined: not named, so a
   *  v3.1 leg keeps the id a previous night's summary compares by (src/report/merge.ts). */
  legMark(family: string): string | undefined;
  /** The balance type a report page names (its meta `balanceType`); undefined: the page's own InterimAvailable, so a
   *  v3.1 workspace's manifest is as it was. */
  reportBalanceType: string | undefined;
  /** A run over several versions: its reports' sub-folder, beside the others' (`<reports>/v4.0`). */
  reportsFolder: string;
  /** A run over several versions: its chained environment's file stem suffix (`<target>-<profile>.v4.0`). */
  environmentSuffix: string;
}

export const API_VERSION_ROWS: Readonly<Record<ApiVersion, ApiVersionRow>> = {
  '3.1': {
    version: '3.1',
    name: 'v3.1',
    pathRoot: '/open-banking/v3.1',
    balanceType: 'InterimAvailable',
    awaitingStatus: 'AwaitingAuthorisation',
    mayBeUnserved: false,
    collectionsFolder: '',
    collectionName: (family) => `obflow ${family}`,
    collectionIdPrefix: '',
    fingerprint: {},
    legMark: () => undefined,
    reportBalanceType: undefined,
    reportsFolder: 'v3.1',
    environmentSuffix: '.v3.1',
  },
  '4.0': {
    version: '4.0',
    name: 'v4.0',
    pathRoot: '/open-banking/v4.0',
    balanceType: 'ITAV',
    awaitingStatus: 'AWAU',
    mayBeUnserved: true,
    collectionsFolder: 'v4.0',
    collectionName: (family) => `obflow ${family} v4.0`,
    collectionIdPrefix: 'v4.0/',
    fingerprint: { apiVersion: '4.0' },
    legMark: (family) => `${family} v4.0`,
    reportBalanceType: 'ITAV',
    reportsFolder: 'v4.0',
    environmentSuffix: '.v4.0',
  },
};

/** The row of a version. */
export function versionRow(version: ApiVersion): ApiVersionRow {
  return API_VERSION_ROWS[version];
}

/** The row of a version named in a file obflow did not just write (a run report, a CI leg's status); undefined for a
 *  version this obflow does not know. */
export function knownVersionRow(text: string | undefined): ApiVersionRow | undefined {
  const version = API_VERSIONS.find((candidate) => candidate === text);
  return version === undefined ? undefined : API_VERSION_ROWS[version];
}

/** The base path of a family's API in a version (`/open-banking/v4.0/aisp`), as the OpenAPI files' `servers` give it. */
export function apiBasePath(family: Pick<ApiFamily, 'segment'>, version: ApiVersion): string {
  return `${API_VERSION_ROWS[version].pathRoot}/${family.segment}`;
}

/** The AIS base path of a version. */
export function aisBasePath(version: ApiVersion): string {
  return apiBasePath(API_FAMILIES.accounts, version);
}

/** How people name a family's API in a version: `AIS v4.0`. */
export function apiLabel(family: Pick<ApiFamily, 'short'>, version: ApiVersion): string {
  return `${family.short} ${API_VERSION_ROWS[version].name}`;
}

/** A comma-separated list of versions (`3.1,4.0`): each known, each once, at least one; else ERR_USAGE listing them. */
export function parseApiVersions(text: string, flag: string): ApiVersion[] {
  return parseFlagList(text, flag, API_VERSIONS, {
    unknownLabel: 'names an unknown version',
    hint: `The versions are ${API_VERSIONS.join(' and ')} (e.g. --${flag} ${API_VERSIONS[API_VERSIONS.length - 1] as string}).`,
  });
}

/** A command that makes one version's files (`generate`, `workspace`): `--api-version 3.1,4.0` is ERR_USAGE. */
export function assertOneVersion(versions: readonly ApiVersion[] | undefined, command: string): void {
  if (versions === undefined || versions.length <= 1) return;
  throw new ObflowError('ERR_USAGE', `${command} takes one --api-version, not ${versions.join(',')}`, {
    hint: `Run it once per version (--api-version ${versions.join(`, then --api-version `)}); \`run\` and \`demo\` take several.`,
  });
}

/** The `--api-version` option of generate, run, demo and workspace (one description for all four). */
export const API_VERSION_OPTION = {
  type: 'string',
  describe: `Account and Transaction API version: ${API_VERSIONS.join(' or ')} (default: flow.apiVersion, else ${DEFAULT_API_VERSION}); run and demo take a list (3.1,4.0): the flow once per version`,
} as const;
