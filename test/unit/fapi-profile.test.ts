// The TPP's FAPI profiles as one table (src/fapi-profile.ts): every row is whole and agrees with itself (a default the
// profile implies is one it allows), and the command line declares `--fapi` once, from the table.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import {
  DEFAULT_FAPI_PROFILE,
  FAPI_OPTION,
  FAPI_PROFILE_NAMES,
  FAPI_PROFILES,
  profileOfSandboxMode,
  SANDBOX_FAPI_MODES,
  SANDBOX_FAPI_OPTION,
} from '../../src/fapi-profile.js';
import { REPO_ROOT } from '../helpers/prerequisites.js';

describe('the FAPI profile table', () => {
  it.each(FAPI_PROFILE_NAMES)('%s: its row is named as it is keyed, and its defaults are values it allows', (name) => {
    const row = FAPI_PROFILES[name];
    expect(row.name).toBe(name);
    expect(row.setting).toBe(`flow.fapi "${name}"`);
    expect(row.responseTypes).toContain(row.defaults.responseType);
    expect(row.authMethods).toContain(row.defaults.tokenEndpointAuthMethod);
    for (const type of row.registration.responseTypes) expect(row.responseTypes).toContain(type);
    expect(SANDBOX_FAPI_MODES).toContain(row.embeddedSandbox);
  });

  it('the default profile is the first, and the emulator mode of each profile is certified for it', () => {
    expect(DEFAULT_FAPI_PROFILE).toBe(FAPI_PROFILE_NAMES[0]);
    for (const name of FAPI_PROFILE_NAMES) expect(profileOfSandboxMode(name)).toBe(FAPI_PROFILES[name]);
    expect(profileOfSandboxMode('interface')).toBeUndefined();
  });
});

describe('the --fapi option', () => {
  const COMMANDS = join(REPO_ROOT, 'src', 'cli', 'commands');
  const declarations = readdirSync(COMMANDS)
    .filter((file) => file.endsWith('.ts'))
    .flatMap((file) =>
      [...readFileSync(join(COMMANDS, file), 'utf8').matchAll(/\.option\(\s*'(fapi|sandbox-fapi)',\s*([^)]*)\)/g)].map(
        (match) => `${file} --${match[1] ?? ''}: ${(match[2] ?? '').trim()}`,
      ),
    );

  it('is declared from the table in every command that has it, never inline', () => {
    expect(declarations.filter((line) => !/: (FAPI_OPTION|SANDBOX_FAPI_OPTION)$/.test(line))).toEqual([]);
    // The TPP's profile where a command speaks the flow; the emulator's mode where one starts it.
    expect(declarations.sort()).toEqual([
      'demo.ts --fapi: FAPI_OPTION',
      'demo.ts --sandbox-fapi: SANDBOX_FAPI_OPTION',
      'environment.ts --fapi: FAPI_OPTION',
      'generate.ts --fapi: FAPI_OPTION',
      'register.ts --fapi: FAPI_OPTION',
      'run.ts --fapi: FAPI_OPTION',
      'sandbox.ts --fapi: SANDBOX_FAPI_OPTION',
    ]);
  });

  it('offers the profiles of the table (and the emulator’s option its modes)', () => {
    expect(FAPI_OPTION.choices).toEqual(FAPI_PROFILE_NAMES);
    expect(SANDBOX_FAPI_OPTION.choices).toEqual(SANDBOX_FAPI_MODES);
  });
});
