// A run over two API versions keeps each version's chained environment in its own file: a later run of one
// version continues that version's state, and falls back to the environment stage's file when there is none.

import { rmSync } from 'node:fs';

import { afterAll, describe, expect, it } from 'vitest';

import type { ObflowConfig } from '../../src/config/schema.js';
import { environmentValue, writeEnvironment, type PostmanEnvironment } from '../../src/environment/index.js';
import { environmentStem, readVersionEnvironment, versionEnvironmentStem } from '../../src/pipeline/environment.js';
import type { Target } from '../../src/pipeline/target.js';
import { tempDirSync } from '../helpers/temp.js';

const stateDir = tempDirSync('obflow-version-env-');
afterAll(() => rmSync(stateDir, { recursive: true, force: true }));

const target = { name: 'sandbox', profile: 'strict-headless' } as Target;
const config = { stateDir } as ObflowConfig;
const environment = (consent: string): PostmanEnvironment =>
  ({ name: 'e', values: [{ key: 'consent_id', value: consent, type: 'default', enabled: true }] }) as unknown as PostmanEnvironment;

describe('each version its own chained environment', () => {
  it("reads the version's own file when a run over several left one, else the environment stage's; the stem says where to save", async () => {
    await writeEnvironment(stateDir, environmentStem(target), environment('from-registration'));
    const before = await readVersionEnvironment(config, target, '4.0');
    expect(before.stem).toBe(environmentStem(target));
    expect(environmentValue(before.environment, 'consent_id')).toBe('from-registration');

    await writeEnvironment(stateDir, versionEnvironmentStem(target, '4.0'), environment('v4'));
    await writeEnvironment(stateDir, versionEnvironmentStem(target, '3.1'), environment('v3'));
    const v40 = await readVersionEnvironment(config, target, '4.0');
    const v31 = await readVersionEnvironment(config, target, '3.1');
    expect([v40.stem, environmentValue(v40.environment, 'consent_id')]).toEqual(['sandbox-strict-headless.v4.0', 'v4']);
    expect([v31.stem, environmentValue(v31.environment, 'consent_id')]).toEqual(['sandbox-strict-headless.v3.1', 'v3']);
  });
});
