// The versions of the Account and Transaction API obflow speaks: one vocabulary that the config schema, the flags and
// the generator import (it lives in generate/, which config already imports, and imports only errors.ts and flag-list.ts, so `--help`
// stays light). The emulator has its twin (src/sandbox/contracts.ts AIS_API_VERSIONS, tied to this one by
// test/unit/sandbox-v4.test.ts): the two rooms meet only on the wire.

import { ObflowError } from '../errors.js';
import { parseFlagList } from '../flag-list.js';

/** 3.1: docs/bank-interface.md as written (/open-banking/v3.1/aisp); 4.0: OBL Read/Write v4.0 (/open-banking/v4.0/aisp). */
export const API_VERSIONS = ['3.1', '4.0'] as const;
export type ApiVersion = (typeof API_VERSIONS)[number];
export const DEFAULT_API_VERSION: ApiVersion = '3.1';

/** The balance type obflow reads in each version (docs/bank-interface.md §2.3): InterimAvailable, ISO 20022 ITAV in
 *  v4.0 — the collections' rule (src/generate/steps/common.ts), the summary's label and the comparison's mapping. */
export const BALANCE_TYPES: Readonly<Record<ApiVersion, string>> = { '3.1': 'InterimAvailable', '4.0': 'ITAV' };

/** The AIS base path of a version, as the OpenAPI files' `servers` give it. */
export function aisBasePath(version: ApiVersion): string {
  return `/open-banking/v${version}/aisp`;
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
