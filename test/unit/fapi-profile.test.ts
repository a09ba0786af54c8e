// The TPP's FAPI profiles as one table (src/fapi-profile.ts): every row is whole and agrees with itself (a default the
// profile implies is one it allows), and the command line's `--fapi` offers the table's profiles.

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

// Which command takes which --fapi (the TPP's profile or the emulator's mode): test/cli/options.test.ts.
describe('the --fapi option', () => {
  it('offers the profiles of the table (and the emulator’s option its modes)', () => {
    expect(FAPI_OPTION.choices).toEqual(FAPI_PROFILE_NAMES);
    expect(SANDBOX_FAPI_OPTION.choices).toEqual(SANDBOX_FAPI_MODES);
  });
});
