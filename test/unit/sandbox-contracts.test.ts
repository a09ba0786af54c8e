// What the emulator and the TPP side must agree on, each written on both sides of the sandbox boundary (the two rooms
// meet only on the wire, so neither imports the other): the profile names, the test users and the environment
// helper's Postman environment. Values are compared here; the types are checked assignable both ways at compile time
// (npm run typecheck fails when one side's copy drifts).

import { describe, expect, it } from 'vitest';

import { SANDBOX_PROFILES } from '../../src/config/profiles.js';
import type { SandboxProfile } from '../../src/config/profiles.js';
import { parseSavedEnvironment } from '../../src/environment/saved.js';
import type { PostmanEnvironment as TppEnvironment, PostmanEnvironmentValue as TppEnvironmentValue } from '../../src/environment/merge.js';
import { SANDBOX_TEST_USERS } from '../../src/pipeline/target.js';
import { buildEnvironment } from '../../src/sandbox/auth/environment.js';
import { PROFILE_NAMES } from '../../src/sandbox/contracts.js';
import type {
  PostmanEnvironment as SandboxEnvironment,
  PostmanEnvironmentValue as SandboxEnvironmentValue,
  ProfileName,
} from '../../src/sandbox/contracts.js';
import { DEFAULT_TEST_USER, TEST_USERS } from '../../src/sandbox/data/users.js';
import { buildUrls } from '../../src/sandbox/index.js';
import type { StoredClient } from '../../src/sandbox/store/auth-store.js';

/** true when A and B are assignable to each other; `false` otherwise, and then the constants below do not compile. */
type Mutual<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

const profileNamesAgree: Mutual<ProfileName, SandboxProfile> = true;
const environmentsAgree: Mutual<SandboxEnvironment, TppEnvironment> = true;
const environmentValuesAgree: Mutual<SandboxEnvironmentValue, TppEnvironmentValue> = true;

describe('the sandbox and the TPP side agree', () => {
  it('on the types (checked by the compiler: these constants only type-check while the copies match)', () => {
    expect([profileNamesAgree, environmentsAgree, environmentValuesAgree]).toEqual([true, true, true]);
  });

  it('on the profile names, in the same order', () => {
    expect([...SANDBOX_PROFILES]).toEqual([...PROFILE_NAMES]);
  });

  it('on the test users: every username with its password, and the default user first', () => {
    expect(SANDBOX_TEST_USERS).toEqual(Object.fromEntries(TEST_USERS.map((user) => [user.username, user.password])));
    expect(Object.keys(SANDBOX_TEST_USERS)[0]).toBe(DEFAULT_TEST_USER);
  });

  it("on the environment file: what the helper builds, the TPP side's environment parser reads back", () => {
    const urls = buildUrls('127.0.0.1', 8443, 9443);
    const client = {
      clientId: 'client-1',
      clientSecret: 'secret-1',
      profile: 'strict-headless',
      softwareId: 'software-1',
      orgId: 'org-1',
      redirectUris: ['https://tpp.example/callback'],
    } as Pick<StoredClient, 'clientId' | 'clientSecret' | 'profile' | 'softwareId' | 'orgId' | 'redirectUris'> as StoredClient;
    const built: SandboxEnvironment = buildEnvironment(client, { urls });
    const read: TppEnvironment = parseSavedEnvironment(JSON.stringify(built), 'helper.postman_environment.json');
    expect(read.name).toBe(built.name);
    expect(read._postman_variable_scope).toBe('environment');
    // The TPP side keeps every entry the helper switched on, with its value and secrecy.
    const enabled = built.values.filter((value) => value.enabled);
    for (const value of enabled)
      expect(
        read.values.find((entry) => entry.key === value.key),
        value.key,
      ).toMatchObject({ value: value.value, type: value.type });
  });
});
