// The one flag table: each flag that overrides a config key (kebab-case flag → its path in the config), read once per
// command into a typed Overrides object (src/config/overrides.ts) that the config loader and the session both take.

import type { Overrides } from '../config/overrides.js';
import { ObflowError } from '../errors.js';
import { parseApiVersions } from '../generate/api-versions.js';
import { API_FAMILY_NAMES } from '../api-families.js';
import { parseFlagList } from '../flag-list.js';

const FLAGS = {
  'state-dir': ['stateDir'],
  profile: ['sandbox', 'profile'],
  seed: ['sandbox', 'seed'],
  'resource-port': ['sandbox', 'resourcePort'],
  'auth-port': ['sandbox', 'authPort'],
  'response-type': ['flow', 'responseType'],
  // The FAPI profile (src/fapi-profile.ts); the config schema refuses what it cannot work with, flags and
  // file alike, and fills what it implies where nothing is set.
  fapi: ['flow', 'fapi'],
  // `obflow demo`: the TPP's client authentication (as bank.token_endpoint_auth_method) and the emulator's FAPI mode.
  'token-auth-method': ['bank', 'token_endpoint_auth_method'],
  'sandbox-fapi': ['sandbox', 'fapi'],
  consent: ['flow', 'consent'],
  'psu-user': ['flow', 'psuUser'],
  'consent-timeout': ['flow', 'browser', 'timeoutSeconds'],
  'max-pages': ['flow', 'maxPages'],
  // --no-skips (yargs: skips false): a skipped step fails the run.
  skips: ['flow', 'allowSkips'],
  'out-collections': ['output', 'collections'],
  'out-reports': ['output', 'reports'],
  insecure: ['insecure'],
  // Which Account and Transaction API version(s); PARSED_FLAGS below reads their values. `--api-version`
  // is a list (run and demo run the flow once per version); one version is flow.apiVersion (config/overrides.ts).
  'api-version': ['apiVersions'],
  'api-versions': ['sandbox', 'apiVersions'],
  // The API families of the flow (flow.apis: accounts, payments, funds); `obflow sandbox --apis` reads it as the
  // families the emulator serves (its own option, src/cli/commands/sandbox.ts).
  apis: ['flow', 'apis'],
} as const satisfies Record<string, readonly [string, ...string[]]>;

/** Flags whose text becomes a typed value here (an unknown version is ERR_USAGE listing the versions). */
const PARSED_FLAGS: Readonly<Partial<Record<keyof typeof FLAGS, (text: string) => unknown>>> = {
  'api-version': (text) => parseApiVersions(text, 'api-version'),
  'api-versions': (text) => parseApiVersions(text, 'api-versions'),
  apis: (text) =>
    parseFlagList(text, 'apis', API_FAMILY_NAMES, {
      unknownLabel: 'names unknown API families',
      hint: `Use one or more of ${API_FAMILY_NAMES.join(', ')}, comma-separated (e.g. --apis payments,funds).`,
    }),
};

/** Flags that name a file or folder: given without a value (`--config` last, or before another flag) yargs reads an
 *  empty string, which would silently mean "no config" or "the working directory". */
const PATH_FLAGS = ['config', 'state-dir', 'out-collections', 'out-reports', 'data-dir'] as const;

/** The overrides a command's parsed flags ask for: only the flags given (undefined never overrides). yargs has checked
 *  each flag's type and choices; the config schema checks the values. */
export function commandOverrides(argv: Readonly<Record<string, unknown>>): Overrides {
  const empty = PATH_FLAGS.find((flag) => argv[flag] === '');
  if (empty !== undefined) {
    throw new ObflowError('ERR_USAGE', `--${empty} needs a path`, {
      hint: `Give it a value (\`--${empty} <path>\`), or leave the flag out.`,
    });
  }
  const overrides: Record<string, unknown> = {};
  for (const [flag, path] of Object.entries(FLAGS)) {
    const given = argv[flag];
    if (given === undefined) continue;
    const parse = PARSED_FLAGS[flag as keyof typeof FLAGS];
    const value = parse !== undefined && typeof given === 'string' ? parse(given) : given;
    let node = overrides;
    for (const key of path.slice(0, -1)) node = (node[key] ??= {}) as Record<string, unknown>;
    node[path[path.length - 1] as string] = value;
  }
  return overrides as Overrides;
}
