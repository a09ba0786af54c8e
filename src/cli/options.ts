// The command-line options that more than one command takes, each declared once: one row per option, one description.
// A command names its rows where its --help lists them (src/cli/command.ts) and declares only what is its own.
// An option built from a domain table stays beside that table (FAPI_OPTION beside FAPI_PROFILE_NAMES), so a new row
// there changes its choices and text in the same file; this table is where every command takes it from.

import type { Options } from 'yargs';
import { API_FAMILIES_OPTION } from '../api-families.js';
import { SANDBOX_PROFILES } from '../config/profiles.js';
import { FAPI_OPTION, RESPONSE_TYPE_OPTION } from '../fapi-profile.js';
import { API_VERSION_OPTION } from '../generate/api-versions.js';

export const SHARED_OPTIONS = {
  // sandbox.profile is one of these in the config schema too: a flag outside them is refused here, with the list.
  profile: {
    type: 'string',
    choices: SANDBOX_PROFILES,
    describe: 'Sandbox client profile (interactive ones consent in Chromium)',
  },
  'psu-user': { type: 'string', describe: 'Test user who consents, sent as login_hint (sandbox: alex, sam or jo)' },
  'response-type': RESPONSE_TYPE_OPTION,
  fapi: FAPI_OPTION,
  'api-version': API_VERSION_OPTION,
  apis: API_FAMILIES_OPTION,
  'out-collections': {
    type: 'string',
    describe: 'Folder of the collections (default: collections): generate writes them there, run reads them',
  },
  insecure: { type: 'boolean', describe: "Do not verify the bank's server certificate (self-signed sandboxes only)" },
} as const satisfies Record<string, Options>;

export type SharedOptionName = keyof typeof SHARED_OPTIONS;
