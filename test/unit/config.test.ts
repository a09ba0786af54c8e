// Config loading: precedence file < OBFLOW_* environment < flags, path resolution, and one-line errors naming the
// dotted path for unknown keys, wrong types and missing files.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { environmentVariables, loadConfig } from '../../src/config/load.js';
import { configJsonSchema, KEY_NAMING_RULE } from '../../src/config/schema.js';
import { ObflowError } from '../../src/errors.js';
import { BANK_PRESETS } from '../../src/config/presets.js';
import { API_VERSIONS } from '../../src/generate/api-versions.js';
import { tempDirSync } from '../helpers/temp.js';
import { BANK_IDENTITY } from '../helpers/config-fixtures.js';

function folderWith(config: unknown): string {
  const dir = tempDirSync('obflow-config-');
  writeFileSync(join(dir, 'obflow.config.json'), JSON.stringify(config));
  return dir;
}

function codeOf(run: () => unknown): { code: string; message: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof ObflowError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected an ObflowError');
}

describe('config precedence', () => {
  it('uses defaults when nothing is configured', () => {
    const cwd = tempDirSync('obflow-empty-');
    const { config, configFile } = loadConfig({ cwd, env: {} });
    expect(configFile).toBeUndefined();
    expect(config.target).toBe('sandbox');
    expect(config.sandbox.profile).toBe('strict-headless');
    expect(config.flow.responseType).toBe('code id_token');
    expect(config.stateDir).toBe(join(cwd, '.obflow'));
  });

  const scenarios = [
    { name: 'file only', file: 'permissive-headless', env: undefined, flag: undefined, expected: 'permissive-headless' },
    {
      name: 'environment beats file',
      file: 'permissive-headless',
      env: 'strict-interactive',
      flag: undefined,
      expected: 'strict-interactive',
    },
    {
      name: 'flag beats environment',
      file: 'permissive-headless',
      env: 'strict-interactive',
      flag: 'permissive-interactive',
      expected: 'permissive-interactive',
    },
    {
      name: 'undefined flag never overrides',
      file: 'permissive-headless',
      env: undefined,
      flag: undefined,
      expected: 'permissive-headless',
    },
  ] as const;
  for (const scenario of scenarios) {
    it(scenario.name, () => {
      const cwd = folderWith({ sandbox: { profile: scenario.file } });
      const env = scenario.env ? { OBFLOW_SANDBOX__PROFILE: scenario.env } : {};
      const flags = { sandbox: { profile: scenario.flag } };
      expect(loadConfig({ cwd, env, flags }).config.sandbox.profile).toBe(scenario.expected);
    });
  }

  it('coerces environment values by the schema type', () => {
    const cwd = folderWith({});
    const { config } = loadConfig({ cwd, env: { OBFLOW_FLOW__MAX_PAGES: '7', OBFLOW_SANDBOX__AUTH_PORT: '8443' } });
    expect(config.flow.maxPages).toBe(7);
    expect(config.sandbox.authPort).toBe(8443);
  });

  it('resolves file paths from the config file folder and flag paths from cwd', () => {
    const dir = folderWith({ stateDir: 'state', output: { reports: 'out/reports' } });
    const cwd = tempDirSync('obflow-cwd-');
    const { config } = loadConfig({
      cwd,
      env: {},
      configFile: join(dir, 'obflow.config.json'),
      flags: { output: { collections: 'mine' } },
    });
    expect(config.stateDir).toBe(join(dir, 'state'));
    expect(config.output.reports).toBe(join(dir, 'out/reports'));
    expect(config.output.collections).toBe(join(cwd, 'mine'));
  });

  it('every schema leaf has an OBFLOW_ variable', () => {
    const names = [...environmentVariables().keys()];
    expect(names).toContain('OBFLOW_BANK__AUTH_URL');
    expect(names).toContain('OBFLOW_IDENTITY__TRANSPORT__PASSPHRASE');
    expect(names).toContain('OBFLOW_STATE_DIR');
  });
});

describe('bad config is one line naming the dotted path', () => {
  it('unknown key', () => {
    const cwd = folderWith({ flow: { responseTipe: 'code' } });
    const error = codeOf(() => loadConfig({ cwd, env: {} }));
    expect(error.code).toBe('ERR_CONFIG_INVALID');
    expect(error.message).toContain('flow.responseTipe');
    expect(error.message).not.toContain('\n');
  });

  it('wrong type', () => {
    const cwd = folderWith({ flow: { maxPages: 'many' } });
    const error = codeOf(() => loadConfig({ cwd, env: {} }));
    expect(error.code).toBe('ERR_CONFIG_INVALID');
    expect(error.message).toContain('flow.maxPages');
  });

  it('wrong environment value and unknown variable', () => {
    const cwd = folderWith({});
    expect(codeOf(() => loadConfig({ cwd, env: { OBFLOW_FLOW__MAX_PAGES: 'x' } })).message).toContain('OBFLOW_FLOW__MAX_PAGES');
    expect(codeOf(() => loadConfig({ cwd, env: { OBFLOW_NOPE: '1' } })).message).toContain('OBFLOW_NOPE');
  });

  it('every problem at once, each with its key path, in one coded line', () => {
    const cwd = folderWith({ flow: { maxPages: 'many', responseTipe: 'code' }, sandbox: { profile: 'nope' } });
    const error = codeOf(() => loadConfig({ cwd, env: {} }));
    expect(error.code).toBe('ERR_CONFIG_INVALID');
    expect(error.message).toMatch(/: 3 problems: /);
    for (const path of ['unknown key flow.responseTipe', 'flow.maxPages', 'sandbox.profile']) expect(error.message).toContain(path);
    expect(error.message).not.toContain('\n');
    const env = codeOf(() => loadConfig({ cwd: folderWith({}), env: { OBFLOW_FLOW__MAX_PAGES: 'x', OBFLOW_NOPE: '1' } }));
    expect(env.code).toBe('ERR_CONFIG_INVALID');
    expect(env.message).toMatch(
      /^environment: 2 problems: .*OBFLOW_FLOW__MAX_PAGES.*OBFLOW_NOPE|^environment: 2 problems: .*OBFLOW_NOPE.*OBFLOW_FLOW__MAX_PAGES/,
    );
  });

  it("the test suite's variables are not config (a shell that ran the tests can still run obflow)", () => {
    const cwd = folderWith({});
    const env = { OBFLOW_SPECS_DIR: '/specs', OBFLOW_REQUIRE_PREREQUISITES: '1', OBFLOW_TEST_CHROMIUM: '/none' };
    expect(loadConfig({ cwd, env })).toEqual(loadConfig({ cwd, env: {} }));
  });

  it('bank target needs bank and identity', () => {
    const cwd = folderWith({ target: 'bank' });
    const error = codeOf(() => loadConfig({ cwd, env: {} }));
    expect(error.code).toBe('ERR_CONFIG_INVALID');
    expect(error.message).toMatch(/bank|identity/);
  });

  it('missing file named by the config', () => {
    const cwd = folderWith({
      target: 'bank',
      bank: { auth_url: 'https://auth.bank.example', sandbox_base_url: 'https://rs.bank.example' },
      identity: BANK_IDENTITY,
    });
    const error = codeOf(() => loadConfig({ cwd, env: {} }));
    expect(error.code).toBe('ERR_FILE_MISSING');
    expect(error.message).toContain('identity.softwareStatement');
  });

  it('a named config file that does not exist', () => {
    const cwd = folderWith({});
    expect(codeOf(() => loadConfig({ cwd, env: {}, configFile: 'nope.json' })).code).toBe('ERR_CONFIG_NOT_FOUND');
  });
});

describe('published JSON Schema', () => {
  it('obflow.config.schema.json is the one the schema generates', () => {
    const published = readFileSync(new URL('../../obflow.config.schema.json', import.meta.url), 'utf8');
    expect(published).toBe(`${JSON.stringify(configJsonSchema(), null, 2)}\n`);
  });

  it('every key follows the naming rule the schema and the README state', () => {
    // Keys outside `bank` named after RFC 7591 / OpenID Connect Registration metadata (KEY_NAMING_RULE).
    const standardNamed = new Set(['flow.request_object_signing_alg', 'registration.refresh_token_grant']);
    const keys: string[] = [];
    const walk = (node: unknown, path: string): void => {
      if (node === null || typeof node !== 'object') return;
      const record = node as Record<string, unknown>;
      for (const variant of [record.anyOf, record.oneOf].flatMap((list) => (Array.isArray(list) ? list : []))) walk(variant, path);
      if (record.items !== undefined) walk(record.items, path);
      if (record.properties !== null && typeof record.properties === 'object')
        for (const [key, child] of Object.entries(record.properties as Record<string, unknown>)) {
          if (key === '$schema') continue;
          keys.push(`${path}${key}`);
          walk(child, `${path}${key}.`);
        }
    };
    walk(configJsonSchema(), '');
    const misnamed = keys.filter((key) => {
      const last = key.split('.').pop() ?? '';
      if (key.startsWith('bank.') || standardNamed.has(key)) return /[A-Z]/.test(last);
      return last.includes('_');
    });
    expect(misnamed).toEqual([]);
    expect(keys).toEqual(expect.arrayContaining(['bank.auth_url', 'flow.responseType', 'stateDir', ...standardNamed]));
    expect(String(configJsonSchema().description)).toContain(KEY_NAMING_RULE);
    expect(
      readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
        .replace(/\s+/g, ' ')
        .toLowerCase(),
    ).toContain("a key that carries a standard's or the bank interface's own name keeps its spelling");
  });
});

describe('bank.preset', () => {
  const identity = BANK_IDENTITY;

  it("ozone-model-bank fills the model bank's addresses, helper path and registration aud under the file, env and flags", () => {
    const cwd = folderWith({ target: 'bank', bank: { preset: 'ozone-model-bank', token_url: 'https://token.example/token' }, identity });
    const { config } = loadConfig({
      cwd,
      env: { OBFLOW_BANK__ENVIRONMENT_HELPER_PATH: '/env/helper' },
      flags: { bank: { name: 'mine' } },
      checkFiles: false,
    });
    expect(config.bank).toEqual({
      preset: 'ozone-model-bank',
      name: 'mine',
      environment: 'sandbox',
      sandbox_base_url: 'https://rs1.obie.uk.ozoneapi.io',
      auth_url: 'https://auth1.obie.uk.ozoneapi.io',
      token_url: 'https://token.example/token',
      environment_helper_path: '/env/helper',
      registration_aud: '0015800001041RHAAY',
      token_endpoint_auth_method: 'client_secret_basic',
      server_ca: [],
      insecure: false,
    });
  });

  it('is settable from the environment; an unknown one names bank.preset; without one auth_url is required', () => {
    const cwd = folderWith({ target: 'bank', identity });
    expect(loadConfig({ cwd, env: { OBFLOW_BANK__PRESET: 'ozone-model-bank' }, checkFiles: false }).config.bank?.auth_url).toBe(
      'https://auth1.obie.uk.ozoneapi.io',
    );
    expect(codeOf(() => loadConfig({ cwd, env: { OBFLOW_BANK__PRESET: 'nope' }, checkFiles: false })).message).toContain('bank.preset');
    expect(codeOf(() => loadConfig({ cwd, env: { OBFLOW_BANK__NAME: 'x' }, checkFiles: false })).message).toContain(
      'bank.auth_url is required',
    );
  });

  it('says which AIS versions the bank offers, as its source documents them (ozone-model-bank: v3.1.11, so 3.1)', () => {
    expect(BANK_PRESETS['ozone-model-bank'].apiVersions).toEqual(['3.1']);
    expect(BANK_PRESETS['ozone-model-bank'].source).toMatch(/tree\/v3\.1\.11\b/);
    for (const preset of Object.values(BANK_PRESETS)) for (const version of preset.apiVersions) expect(API_VERSIONS).toContain(version);
  });

  it('the published JSON Schema offers the preset names', () => {
    const bank = (configJsonSchema().properties as Record<string, { properties: Record<string, { enum?: string[] }> }>).bank;
    expect(bank?.properties.preset?.enum).toEqual(['ozone-model-bank']);
  });
});
